/**
 * The peer: node-oidc-provider's token endpoint doing the client_credentials grant. Without
 * PEER_DATABASE_URL it issues JWT access tokens signed as ours are (EdDSA) and keeps nothing
 * durable; with it, the durable production shape for revocable tokens: opaque tokens, each one a
 * row in Postgres (./peer-postgres-adapter.ts) committed before the answer. Prints "ready <port>".
 */
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';
import pg from 'pg';
import { PEER_CLIENT, PEER_RESOURCE } from './peer-client.js';
import { PEER_SCHEMA, postgresAdapter } from './peer-postgres-adapter.js';

const { privateKey } = generateKeyPairSync('ed25519');
const port = Number(process.env.PORT ?? 0);
const databaseUrl = process.env.PEER_DATABASE_URL;
// As many connections as our API's pool by default: the same chance at group commit.
const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl, max: 10 }) : undefined;
if (pool) await pool.query(PEER_SCHEMA);
const provider = new Provider(`http://127.0.0.1:${port}`, {
  ...(pool ? { adapter: postgresAdapter(pool) } : {}),
  clients: [
    {
      ...PEER_CLIENT,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'EdDSA',
    },
  ],
  jwks: {
    keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'peer', alg: 'EdDSA', use: 'sig' }],
  },
  ttl: { ClientCredentials: 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => PEER_RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: '',
        audience: 'storefront.api.local',
        accessTokenTTL: 3600,
        accessTokenFormat: pool ? 'opaque' : 'jwt',
        ...(pool ? {} : { jwt: { sign: { alg: 'EdDSA' } } }),
      }),
    },
  },
});
provider.on('server_error', (_ctx: unknown, error: Error) =>
  console.error('peer server_error', error),
);
const server = provider.listen(port, () => {
  console.log(`ready ${(server.address() as { port: number }).port}`);
});
process.on('SIGTERM', () => server.close(() => void pool?.end().finally(() => process.exit(0))));
