import Router from '@koa/router';
import type { KeyStore } from '../../tokens/signing-keys.js';

/** GET /.well-known/jwks.json: the public keys that verify every access token we issue. */
export function jwksRoutes(keys: KeyStore): Router {
  const router = new Router();
  router.get('/.well-known/jwks.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = keys.jwks();
  });
  return router;
}
