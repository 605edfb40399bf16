import { mintDevLoginToken } from '../src/tokens/login-tokens.js';

/**
 * The client the bench loads our endpoints with, made as a user would make it: a development
 * login token, a credential in `bench-space`, and a private token for the public-token runs.
 */
export async function benchClient(
  api: string,
  dataDir: string,
  audience: string,
): Promise<{ readonly tokenBody: string; readonly privateToken: string }> {
  const login = await mintDevLoginToken({
    dataDir,
    audience: 'token-authority',
    spacesClaim: 'spaces',
    subject: 'bench',
    spaces: ['bench-space'],
    ttlSeconds: 3600,
  });
  const created = await fetch(`${api}/v1/credential`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${login}`,
      'x-service-space-id': 'bench-space',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name: 'bench', description: 'benchmark client' }),
  });
  const credential = (await created.json()) as { client_id: string; client_secret: string };
  const tokenBody = JSON.stringify({ ...credential, audience, grant_type: 'client_credentials' });
  const answer = await fetch(`${api}/v1/credential/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: tokenBody,
  });
  const { access_token: privateToken } = (await answer.json()) as { access_token: string };
  return { tokenBody, privateToken };
}
