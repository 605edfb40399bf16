import Router from '@koa/router';
import type { KeyStore } from '../../tokens/key-store.js';
import type { Operation } from '../openapi/operation.js';
import { jwks } from '../openapi/responses.js';

/** The OpenAPI description of {@link jwksRoutes}. */
export const jwksOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'jwks',
    tag: 'Verification',
    summary: 'The public keys that verify every access token (RFC 7517)',
    caller: 'public',
    responses: [{ status: 200, description: 'JWK set', schema: jwks }],
    errors: [],
    dialect: 'problem',
  },
];

/** GET /.well-known/jwks.json: the public keys that verify every access token we issue. */
export function jwksRoutes(keys: KeyStore): Router {
  const router = new Router();
  router.get('/.well-known/jwks.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = keys.jwks();
  });
  return router;
}
