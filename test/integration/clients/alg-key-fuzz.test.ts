import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ALGS,
  EVERY_PAIR,
  forgedJws,
  publicJwkOf,
  KEY_TYPES,
  type Alg,
  type KeyType,
} from '../../../packages/verifier/test/support/forged-jws.js';
import { delegationParties } from '../../support/delegation.js';
import { startLocalDocuments, type LocalDocuments } from '../../support/local-documents.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Every alg × key type on every HTTP path that verifies a JWS: a 4xx with its OAuth error, never a
 * 500, and a failed client authentication recorded wherever one is. The header always names a
 * real key (its kid, or its jwk for DPoP); the signer is never that key. Before the fix an ES384
 * assertion naming an issuer's P-256 key was a WebCrypto DataError answered 500, unrecorded.
 */
const SPACE = 'space-alg-fuzz';
const ISSUER = 'http://token-authority.test';
const FUZZ_ISS = 'https://workloads.fuzz.example';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let service: TestService;
const parties = delegationParties(() => service, SPACE);
let keyed: string;
let workload: string;
let storefront: { client_id: string; client_secret: string };
let subject: string;
let docs: LocalDocuments;
let documentClient: string;

const inSpace = { 'x-service-space-id': SPACE };
const soon = () => {
  const now = Math.floor(Date.now() / 1000);
  return { iat: now, exp: now + 60, jti: randomUUID() };
};
const assertionBy = (iss: string, sub: string) => (alg: Alg, type: KeyType) =>
  forgedJws(alg, { kid: type }, { iss, sub, aud: ISSUER, ...soon() });

beforeAll(async () => {
  service = await startTestService({
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000000',
    FAILED_AUTH_EVENTS_PER_MINUTE: '1000000',
  });
  const keys = await Promise.all(KEY_TYPES.map((type) => publicJwkOf(type)));
  const login = `Bearer ${await service.loginToken([SPACE])}`;
  const created = await service.post(
    '/v1/credential',
    { name: 'keyed', description: 'every key type', jwks: { keys } },
    { authorization: login, ...inSpace },
  );
  expect(created.status, await created.clone().text()).toBe(201);
  keyed = ((await created.json()) as { client_id: string }).client_id;
  workload = (await createCredentialVia(service, SPACE, 'workload')).client_id;
  const trusted = await service.post(
    '/v1/trusted-issuers',
    {
      iss: FUZZ_ISS,
      jwks: { keys },
      audience: ISSUER,
      rules: [{ id: 'fuzz', claims: { sub: 'fuzz-workload' }, client_id: workload }],
    },
    { authorization: login, ...inSpace },
  );
  expect(trusted.status, await trusted.clone().text()).toBe(201);
  // A client ID metadata document publishing every key type, its domain allowed in the space.
  docs = await startLocalDocuments();
  documentClient = `https://localhost:${docs.port}/fuzz-agent`;
  docs.serve('/fuzz-agent', {
    body: { client_id: documentClient, client_name: 'fuzz', jwks: { keys } },
    headers: { 'cache-control': 'max-age=60' },
  });
  const allowed = await service.post(
    '/v1/metadata-client-domains',
    { domain: 'localhost' },
    { authorization: login, ...inSpace },
  );
  expect(allowed.status, await allowed.clone().text()).toBe(201);
  storefront = await createCredentialVia(service, SPACE, 'storefront');
  const bought = await privateTokenVia(service, storefront);
  subject = await parties.accessToken(await parties.issue(bought, { may_act: workload }));
}, 60_000);

/** A path: the request a forged JWS of (alg, key type) makes, the status and error it must get. */
interface Path {
  readonly send: (alg: Alg, type: KeyType) => Promise<Response>;
  readonly status: number;
  readonly error: string;
  /** The client whose failed authentication each refusal records. */
  readonly recordedFor?: () => string;
}

const exchangeWithActor = async (actor: string) =>
  service.post(
    '/v1/credential/token',
    {
      grant_type: parties.TOKEN_EXCHANGE,
      subject_token: subject,
      subject_token_type: parties.ACCESS_TOKEN,
      actor_token: actor,
      actor_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    },
    inSpace,
  );
const clientCredentials = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  service.post(
    '/v1/credential/token',
    { grant_type: 'client_credentials', audience: AUDIENCE, ...fields },
    headers,
  );
const workloadAssertion = assertionBy(FUZZ_ISS, 'fuzz-workload');

const PATHS: Record<string, Path> = {
  'private_key_jwt client authentication': {
    send: async (alg, type) =>
      clientCredentials({
        client_id: keyed,
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertionBy(keyed, keyed)(alg, type),
      }),
    status: 401,
    error: 'invalid_client',
    recordedFor: () => keyed,
  },
  "a client ID metadata document's keys": {
    send: async (alg, type) =>
      clientCredentials(
        {
          client_id: documentClient,
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await assertionBy(documentClient, documentClient)(alg, type),
        },
        inSpace,
      ),
    status: 401,
    error: 'invalid_client',
  },
  "a trusted issuer's assertion as client authentication": {
    send: async (alg, type) =>
      clientCredentials({
        client_id: workload,
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await workloadAssertion(alg, type),
      }),
    status: 401,
    error: 'invalid_client',
    recordedFor: () => workload,
  },
  "a trusted issuer's assertion at the jwt-bearer grant": {
    send: async (alg, type) =>
      service.post(
        '/v1/credential/token',
        {
          grant_type: JWT_BEARER,
          assertion: await workloadAssertion(alg, type),
          audience: AUDIENCE,
        },
        inSpace,
      ),
    status: 400,
    error: 'invalid_grant',
    recordedFor: () => workload,
  },
  "an actor token: a trusted issuer's assertion": {
    send: async (alg, type) => exchangeWithActor(await workloadAssertion(alg, type)),
    status: 400,
    error: 'invalid_grant',
    recordedFor: () => workload,
  },
  "an actor token: the agent's own private_key_jwt assertion": {
    send: async (alg, type) => exchangeWithActor(await assertionBy(keyed, keyed)(alg, type)),
    status: 400,
    error: 'invalid_grant',
    recordedFor: () => keyed,
  },
  'a DPoP proof at the token endpoint': {
    send: async (alg, type) => {
      const { kid: _kid, ...jwk } = await publicJwkOf(type);
      const claims: JWTPayload = { htm: 'POST', htu: `${ISSUER}/v1/credential/token`, ...soon() };
      return clientCredentials(
        { ...storefront },
        { dpop: await forgedJws(alg, { typ: 'dpop+jwt', jwk }, claims) },
      );
    },
    status: 400,
    error: 'invalid_dpop_proof',
  },
};

/** How many failed authentications the log holds for a client. */
async function failuresOf(clientId: string): Promise<number> {
  const { rows } = await service.database.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events
      WHERE event_type = 'client-authentication-failed' AND data->>'client_id' = $1`,
    [clientId],
  );
  return rows[0]!.n;
}

describe.each(Object.entries(PATHS))('%s', (_name, path) => {
  it.each(EVERY_PAIR)('%s naming a %s key is %#: a refusal, never a 500', async (alg, type) => {
    const before = path.recordedFor ? await failuresOf(path.recordedFor()) : 0;
    const response = await path.send(alg, type);
    const body = (await response.json()) as { error?: string; error_description?: string };
    expect(response.status, JSON.stringify(body)).toBe(path.status);
    expect(body.error).toBe(path.error);
    if (path.recordedFor) expect(await failuresOf(path.recordedFor())).toBe(before + 1);
  });
});

describe('the refusals above, counted', () => {
  it('/metrics counts each failed authentication the log recorded, none more, none less', async () => {
    const { rows } = await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE event_type = 'client-authentication-failed'`,
    );
    // Every path that records: 40 pairs each.
    const recording = Object.values(PATHS).filter((path) => path.recordedFor).length;
    expect(rows[0]!.n).toBe(recording * EVERY_PAIR.length);
    const text = await (await fetch(`http://127.0.0.1:${service.api.metricsPort}/metrics`)).text();
    const counted =
      /^token_authority_rejected_client_authentications_total(?:\{[^}]*\})? (\d+)$/m.exec(text);
    expect(Number(counted?.[1])).toBe(rows[0]!.n);
  });
});

describe('our own access tokens and login tokens: a forged alg naming our real kid', () => {
  const ownToken = (alg: Alg) => {
    const now = Math.floor(Date.now() / 1000);
    return forgedJws(
      alg,
      { kid: service.api.commands.keys.current().kid, typ: 'at+jwt' },
      {
        iss: ISSUER,
        sub: storefront.client_id,
        aud: AUDIENCE,
        iat: now,
        exp: now + 600,
        jti: randomUUID(),
        client_id: storefront.client_id,
        space_id: SPACE,
        token_kind: 'private',
      },
    );
  };

  it.each(ALGS)('%s at /v1/issue is 401 invalid_token', async (alg) => {
    const response = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      { authorization: `Bearer ${await ownToken(alg)}`, ...inSpace },
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('invalid_token');
  });

  it.each(ALGS)('%s at introspection is inactive', async (alg) => {
    const response = await service.post('/v1/introspect', {
      token: await ownToken(alg),
      ...storefront,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ active: false });
  });

  it.each(ALGS)('%s as a login token naming the dev key is 401', async (alg) => {
    const now = Math.floor(Date.now() / 1000);
    const token = await forgedJws(
      alg,
      { kid: 'dev-login' },
      {
        iss: 'urn:token-authority:dev-login',
        sub: 'mallory',
        aud: service.config.LOGIN_AUDIENCE,
        iat: now,
        exp: now + 60,
        spaces: [SPACE],
        role: 'admin',
      },
    );
    const response = await fetch(`${service.baseUrl}/v1/credentials`, {
      headers: { authorization: `Bearer ${token}`, ...inSpace },
    });
    expect(response.status).toBe(401);
  });
});
