import { createRemoteJWKSet, jwtVerify } from 'jose';

/** What one pass through the three operations gave, each token verified through the JWKS. */
export interface IssuanceFlow {
  readonly clientId: string;
  readonly privateClaims: Record<string, unknown>;
  readonly publicClaims: Record<string, unknown>;
  /** The space's audit trail afterwards, oldest first. */
  readonly auditEventTypes: readonly string[];
}

async function json(response: Response, expected: number): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== expected) {
    throw new Error(`${response.url}: ${response.status} ${JSON.stringify(body)}`);
  }
  return body;
}

/**
 * Creates a credential with `loginToken`, buys a private token with it and a public token with
 * that, verifies both as a resource server would (the issuer's JWKS), and reads the audit trail.
 */
export async function runIssuanceFlow(options: {
  readonly baseUrl: string;
  readonly issuer: string;
  readonly loginToken: string;
  readonly space: string;
  readonly audience: string;
}): Promise<IssuanceFlow> {
  const { baseUrl, loginToken, space, audience } = options;
  const asUser = { authorization: `Bearer ${loginToken}`, 'x-service-space-id': space };
  const credential = await json(
    await fetch(`${baseUrl}/v1/credential`, {
      method: 'POST',
      headers: { ...asUser, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'compose check', description: 'made by CI' }),
    }),
    201,
  );
  const privateToken = await json(
    await fetch(`${baseUrl}/v1/credential/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: credential.client_id,
        client_secret: credential.client_secret,
        audience,
        grant_type: 'client_credentials',
      }),
    }),
    200,
  );
  const publicToken = await json(
    await fetch(`${baseUrl}/v1/issue`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${String(privateToken.access_token)}`,
        'x-service-space-id': space,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ customer_id: 'customer-42', segment_id: 'vip' }),
    }),
    200,
  );
  const jwks = createRemoteJWKSet(new URL(`${baseUrl}/.well-known/jwks.json`));
  const verify = async (token: unknown) =>
    (await jwtVerify(String(token), jwks, { issuer: options.issuer, audience })).payload;
  const audit = await json(
    await fetch(`${baseUrl}/v1/audit/events?limit=1000`, { headers: asUser }),
    200,
  );
  return {
    clientId: String(credential.client_id),
    privateClaims: await verify(privateToken.access_token),
    publicClaims: await verify(publicToken.access_token),
    auditEventTypes: (audit.items as { event_type: string }[]).map((item) => item.event_type),
  };
}
