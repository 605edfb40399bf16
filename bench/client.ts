import { mintDevLoginToken } from '../src/crypto/login-tokens.js';

/** One request the load generator repeats. */
export type BenchRequest = {
  readonly url: string;
  readonly method: 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

/** A bench client's credentials and the two issuance requests made with them. */
export interface BenchClient {
  readonly tokenBody: string;
  readonly privateToken: string;
  /** POST /v1/credential/token with the client's credentials. */
  readonly privateRequest: BenchRequest;
  /** POST /v1/issue paid for by the private token, for customer-1 in segment-1. */
  readonly publicRequest: BenchRequest;
}

/**
 * The client the bench loads our endpoints with, made as a user would make it: a development
 * login token, a credential in `bench-space`, and a private token for the public-token runs.
 */
export async function benchClient(
  api: string,
  dataDir: string,
  audience: string,
  /** Scopes the credential holds and both requests ask for (issue 41's three-scope token). */
  scopes?: readonly string[],
): Promise<BenchClient> {
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
    body: JSON.stringify({
      name: 'bench',
      description: 'benchmark client',
      ...(scopes ? { scopes } : {}),
    }),
  });
  const credential = (await created.json()) as { client_id: string; client_secret: string };
  const scope = scopes ? { scope: scopes.join(' ') } : {};
  const tokenBody = JSON.stringify({
    ...credential,
    audience,
    grant_type: 'client_credentials',
    ...scope,
  });
  const answer = await fetch(`${api}/v1/credential/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: tokenBody,
  });
  const { access_token: privateToken } = (await answer.json()) as { access_token: string };
  return {
    tokenBody,
    privateToken,
    privateRequest: {
      url: `${api}/v1/credential/token`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: tokenBody,
    },
    publicRequest: {
      url: `${api}/v1/issue`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${privateToken}`,
        'x-service-space-id': 'bench-space',
      },
      body: JSON.stringify({ customer_id: 'customer-1', segment_id: 'segment-1', ...scope }),
    },
  };
}
