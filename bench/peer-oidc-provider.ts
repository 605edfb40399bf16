/**
 * The peer: node-oidc-provider's token endpoint doing the client_credentials grant and issuing JWT
 * access tokens signed with the same algorithm as ours (EdDSA / Ed25519). It keeps nothing
 * durable (JWT access tokens are not stored). Prints "ready <port>" when listening.
 */
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';
import { PEER_CLIENT, PEER_RESOURCE } from './peer-client.js';

const { privateKey } = generateKeyPairSync('ed25519');
const port = Number(process.env.PORT ?? 0);
const provider = new Provider(`http://127.0.0.1:${port}`, {
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
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'EdDSA' } },
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
process.on('SIGTERM', () => server.close(() => process.exit(0)));
