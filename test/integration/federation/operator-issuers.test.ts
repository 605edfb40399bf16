import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { operatorIssuers } from '../../../src/cli/trusted-issuer-ports.js';
import { ConfigError } from '../../../src/config/config.js';
import { startLocalIssuer, type LocalIssuer } from '../../support/local-issuer.js';
import {
  adminCall,
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 54 item 1: the operator's trusted issuers (TRUSTED_ISSUERS) serve the spaces their rules
 * name, at the jwt-bearer grant as a space's own do, and no space's admin changes them.
 */
const SPACE = 'space-operator-issuers';
const OTHER = 'space-operator-issuers-other';
const OURS = 'http://token-authority.test';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let service: TestService;
let platform: LocalIssuer;
const clients: Record<string, string> = {};

const declared = () => [
  {
    id: 'platform',
    iss: platform.iss,
    jwks_uri: platform.jwksUri,
    audience: OURS,
    rules: [
      {
        id: 'payments',
        space_id: SPACE,
        claims: { sub: 'spiffe://shop/payments' },
        client_id: clients.payments,
      },
      {
        id: 'billing',
        space_id: OTHER,
        claims: { sub: 'spiffe://shop/billing' },
        client_id: clients.billing,
      },
    ],
  },
];

const grant = async (sub: string, space: string) => {
  const response = await service.post(
    '/v1/credential/token',
    {
      grant_type: JWT_BEARER,
      assertion: await platform.mint({ aud: OURS, sub }),
      audience: AUDIENCE,
    },
    { 'x-service-space-id': space },
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const admin = async (method: string, path: string, body?: unknown) => {
  const response = await adminCall(service, SPACE, method, path, body);
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
};

beforeAll(async () => {
  platform = await startLocalIssuer({ alg: 'ES256' });
  // The credentials exist before the deployment that names them starts (a second process).
  const first = await startTestService();
  clients.payments = (await createCredentialVia(first, SPACE, 'payments')).client_id;
  clients.billing = (await createCredentialVia(first, OTHER, 'billing')).client_id;
  service = await startTestService(
    { TRUSTED_ISSUERS: JSON.stringify(declared()) },
    pino({ level: 'silent' }),
    { database: first.database, dataDir: first.dataDir },
  );
}, 60_000);

describe('operator-declared trusted issuers (TRUSTED_ISSUERS)', () => {
  it('a workload of a space a rule names gets a private token through the jwt-bearer grant', async () => {
    const answer = await grant('spiffe://shop/payments', SPACE);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(decodeJwt(answer.body.access_token as string)).toMatchObject({
      client_id: clients.payments,
      token_kind: 'private',
    });
  });

  it('a rule naming another space gives nothing in this one, and serves its own', async () => {
    const here = await grant('spiffe://shop/billing', SPACE);
    expect(here.status).toBe(400);
    expect(here.body.error).toBe('invalid_grant');
    const there = await grant('spiffe://shop/billing', OTHER);
    expect(there.status, JSON.stringify(there.body)).toBe(200);
  });

  it("is listed to the spaces it serves, with only that space's rules, and no admin changes it", async () => {
    const list = await admin('GET', '/v1/trusted-issuers');
    expect(list.body.items).toEqual([
      expect.objectContaining({
        issuer_id: 'operator-platform',
        declared_by: 'operator',
        rules: [expect.objectContaining({ id: 'payments', client_id: clients.payments })],
      }),
    ]);
    const { id: _id, ...definition } = declared()[0]!;
    const changed = await admin('PATCH', '/v1/trusted-issuers/operator-platform', {
      ...definition,
      rules: [definition.rules[0]],
    });
    expect(changed.status).toBe(409);
    expect(JSON.stringify(changed.body)).toContain('TRUSTED_ISSUERS');
    expect((await admin('DELETE', '/v1/trusted-issuers/operator-platform')).status).toBe(409);
    expect((await grant('spiffe://shop/payments', SPACE)).status).toBe(200);
  });

  it('authenticates a client by its assertion (federated-jwt) in the space its rule names', async () => {
    const response = await service.post('/v1/credential/token', {
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      client_id: clients.billing,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await platform.mint({ aud: OURS, sub: 'spiffe://shop/billing' }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
  });

  it('the dashboard read shows the issuer, the tokens each rule bought and its last use', async () => {
    const { body } = await admin('GET', '/v1/monitoring/trusted-issuers?window=1h');
    expect(body.issuers).toEqual([
      {
        issuer_id: 'operator-platform',
        iss: platform.iss,
        declared_by: 'operator',
        trusted: true,
        rules: [{ rule: 'payments', issuances: 2, last_used: expect.any(String) }],
      },
    ]);
    const refused = await admin('GET', '/v1/monitoring/trusted-issuers?window=30d');
    expect(refused.status).toBe(400);
  });

  it.each([
    ['not JSON', () => 'not json', 'expected a JSON array'],
    [
      'a rule without its space',
      () => [{ ...declared()[0], rules: [{ id: 'r', claims: { sub: 'x' }, client_id: 'c' }] }],
      'space_id',
    ],
    [
      'an audience not ours',
      () => [{ ...declared()[0], audience: 'https://elsewhere.example' }],
      'audience',
    ],
    [
      'two issuers of one iss',
      () => [declared()[0], { ...declared()[0], id: 'again' }],
      'repeated',
    ],
  ])('refuses %s at start, naming the setting and the fault', async (_case, make, fault) => {
    const value: unknown = make();
    const config = {
      ...service.config,
      TRUSTED_ISSUERS: typeof value === 'string' ? value : JSON.stringify(value),
    };
    const refused = await operatorIssuers(config).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect(String((refused as Error).message)).toMatch(/TRUSTED_ISSUERS/);
    expect(String((refused as Error).message)).toContain(fault);
  });
});
