/**
 * The storefront's server (issue 55): holds its private token and buys a customer's public token
 * with it, naming in `may_act` the agent the customer allowed. Env: TOKEN_SERVICE, SPACE,
 * AUDIENCE, CLIENT_ID, CLIENT_SECRET, SCOPE.
 */
import { serveJson } from './json-server.js';

const env = (name: string) => process.env[name] ?? '';
const service = env('TOKEN_SERVICE');

async function privateToken(): Promise<string> {
  const response = await fetch(`${service}/v1/credential/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: env('CLIENT_ID'),
      client_secret: env('CLIENT_SECRET'),
      audience: env('AUDIENCE'),
      scope: env('SCOPE'),
    }),
  });
  if (response.status !== 200) throw new Error(`private token: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

const token = await privateToken();

serveJson({
  /** `{ customer_id, may_act?, scope? }` → the token service's answer to POST /v1/issue. */
  '/customer-token': async (body) => {
    const response = await fetch(`${service}/v1/issue`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'x-service-space-id': env('SPACE'),
      },
      body: JSON.stringify({ segment_id: 'vip', ...body }),
    });
    return { status: response.status, body: await response.json() };
  },
});
