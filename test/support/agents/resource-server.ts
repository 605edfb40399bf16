/**
 * The resource server (issue 55): a Koa app verifying tokens with the kit, its RFC 9728 metadata
 * served; one route for agents only (delegation required, one agent served), one a customer must
 * use in person (delegation refused). Env: ISSUER, AUDIENCE, RESOURCE, AGENT_ID, PORT.
 */
import Router from '@koa/router';
import Koa from 'koa';
import {
  createVerifier,
  koaResourceMetadata,
  koaVerifier,
  type VerifiedToken,
} from '../../../src/verify/index.js';

const env = (name: string) => process.env[name] ?? '';
const resource = env('RESOURCE');
const base = new URL(resource).pathname.replace(/\/$/, '');
const verifier = createVerifier({
  issuer: env('ISSUER'),
  audience: env('AUDIENCE'),
  revocationRefreshSeconds: 1,
  resourceMetadata: {
    resource,
    scopesSupported: ['products:read', 'cart:write', 'checkout:write'],
    resourceName: 'Storefront API',
  },
});
const origin = new URL(resource).origin;
const seen = (ctx: { state: Record<string, unknown>; body: unknown }) => {
  const token = ctx.state.token as VerifiedToken;
  ctx.body = { customer: token.customer_id, actors: token.actors, scope: token.scope };
};

const router = new Router();
router.get('/healthz', (ctx) => void (ctx.body = { status: 'ok' }));
router.post(
  `${base}/agent/cart`,
  koaVerifier(verifier, {
    origin,
    requiredScopes: ['cart:write'],
    delegation: 'required',
    agents: [env('AGENT_ID')],
  }),
  seen,
);
router.post(
  `${base}/account/checkout`,
  koaVerifier(verifier, { origin, requiredScopes: ['checkout:write'], delegation: 'refused' }),
  seen,
);

const app = new Koa();
app.use(koaResourceMetadata(verifier));
app.use(router.routes());
const server = app.listen(Number(env('PORT')), '127.0.0.1');
process.once('SIGTERM', () => server.close());
