import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalIssuer, type LocalIssuer } from '../../support/local-issuer.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { delegationParties } from '../../support/delegation.js';
import {
  adminCall,
  AUDIENCE,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Narrowing or removing a trusted issuer's rule reaches the private tokens it bought, as narrowing
 * their credential does: inactive at introspection, refused at /v1/issue and token exchange.
 */
const SPACE = 'space-issuer-rules';
const OURS = 'http://token-authority.test';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const SCOPES = ['products:read', 'cart:write'];
let service: TestService;
let platform: LocalIssuer;
const { credential, issue, TOKEN_EXCHANGE, ACCESS_TOKEN } = delegationParties(() => service, SPACE);

const admin = async (method: string, path: string, body?: unknown) =>
  adminCall(service, SPACE, method, path, body);

/** The workload's private token for `scope`, bought with its platform's token. */
async function workloadToken(scope: string): Promise<string> {
  const response = await service.post(
    '/v1/credential/token',
    {
      grant_type: JWT_BEARER,
      assertion: await platform.mint({ aud: OURS, sub: 'shop-workload' }),
      audience: AUDIENCE,
      scope,
    },
    { 'x-service-space-id': SPACE },
  );
  const body = (await response.json()) as { access_token: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.access_token;
}

beforeAll(async () => {
  service = await startTestService({ SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG) });
  platform = await startLocalIssuer({ alg: 'ES256' });
});

describe("a trusted issuer's rule narrowed or removed", () => {
  it('reaches the tokens it bought: inactive at introspection, refused at /v1/issue and exchange', async () => {
    const shop = await credential(SCOPES);
    const rule = (scopes: string[]) => ({
      iss: platform.iss,
      jwks_uri: platform.jwksUri,
      audience: OURS,
      rules: [{ id: 'shop', claims: { sub: 'shop-workload' }, client_id: shop.client_id, scopes }],
    });
    const added = await admin('POST', '/v1/trusted-issuers', rule(SCOPES));
    const { issuer_id: issuerId } = (await added.json()) as { issuer_id: string };
    expect(added.status).toBe(201);
    const wide = await workloadToken('products:read cart:write');
    const narrow = await workloadToken('products:read');
    const active = async (token: string) => {
      const response = await service.post('/v1/introspect', { ...shop, token });
      return ((await response.json()) as { active: boolean }).active;
    };
    const exchange = (token: string) =>
      service.post(
        '/v1/credential/token',
        {
          grant_type: TOKEN_EXCHANGE,
          subject_token: token,
          subject_token_type: ACCESS_TOKEN,
          customer_id: 'c-1',
          segment_id: 'vip',
        },
        { 'x-service-space-id': SPACE },
      );
    expect(await active(wide)).toBe(true);

    // Narrowed: the token carrying cart:write stands no more; the other does.
    expect(
      (await admin('PATCH', `/v1/trusted-issuers/${issuerId}`, rule(['products:read']))).status,
    ).toBe(200);
    expect(await active(wide)).toBe(false);
    expect((await issue(wide, {})).status).toBe(401);
    expect((await exchange(wide)).status).toBe(400);
    expect(await active(narrow)).toBe(true);
    expect((await issue(narrow, {})).status).toBe(200);

    // Removed: none of its tokens stands, though the credential is as it was.
    expect((await admin('DELETE', `/v1/trusted-issuers/${issuerId}`)).status).toBe(204);
    expect(await active(narrow)).toBe(false);
    expect((await issue(narrow, {})).status).toBe(401);
    expect((await exchange(narrow)).status).toBe(400);
  });

  it('reaches them when the rule acts as another credential: the token stands on none', async () => {
    const [shop, other] = [await credential(SCOPES), await credential(SCOPES)];
    const rule = (clientId: string) => ({
      iss: platform.iss,
      jwks_uri: platform.jwksUri,
      audience: OURS,
      rules: [{ id: 'moved', claims: { sub: 'shop-workload' }, client_id: clientId }],
    });
    const added = await admin('POST', '/v1/trusted-issuers', rule(shop.client_id));
    const { issuer_id: issuerId } = (await added.json()) as { issuer_id: string };
    const token = await workloadToken('products:read');
    const active = async () => {
      const response = await service.post('/v1/introspect', { ...shop, token });
      return ((await response.json()) as { active: boolean }).active;
    };
    expect(await active()).toBe(true);
    const moved = await admin('PATCH', `/v1/trusted-issuers/${issuerId}`, rule(other.client_id));
    expect(moved.status).toBe(200);
    expect(await active()).toBe(false);
    expect((await issue(token, {})).status).toBe(401);
  });
});
