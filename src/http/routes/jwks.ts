import type { KeyStore } from '../../crypto/key-store.js';
import { jwks } from '../openapi/responses.js';
import { route, type Route } from '../route.js';

/**
 * How long verifiers may hold a JWKS (seconds): a key leaves them by then, and a withdrawn one is
 * listed by the revocation list at least as long.
 */
export const JWKS_MAX_AGE = 300;

/** GET /.well-known/jwks.json: the public keys that verify every access token we issue. */
export function jwksRoutes(keys: KeyStore): readonly Route[] {
  return [
    route('get', '/.well-known/jwks.json', 'public', {
      operationId: 'jwks',
      tag: 'Verification',
      summary: 'The public keys that verify every access token (RFC 7517)',
      responses: [{ status: 200, description: 'JWK set', schema: jwks }],
      handle(ctx) {
        ctx.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE}`);
        ctx.body = keys.jwks();
      },
    }),
  ];
}
