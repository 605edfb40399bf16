import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalIssuer, type LocalIssuer } from '../../support/local-issuer.js';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 54: a space's admins trust their platforms' issuers, and a workload holding its
 * platform's token (a Kubernetes service account's, a SPIFFE JWT-SVID, a GitHub Actions OIDC
 * token) gets a private token with the jwt-bearer grant (RFC 7523 §2.1): no secret of ours.
 */
const SPACE = 'space-issuers';
const OTHER_SPACE = 'space-issuers-other';
const LOCKOUT_SPACE = 'space-issuers-lockout';
const OURS = 'http://token-authority.test';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let service: TestService;
let kubernetes: LocalIssuer;
let spiffe: LocalIssuer;
let github: LocalIssuer;
const clients: Record<string, string> = {};

/** An answer's body, read loosely: each test asserts the fields it names. */
interface Answer {
  readonly items: Array<{
    readonly [field: string]: unknown;
    readonly issuer_id?: string;
    readonly iss?: string;
    readonly jti?: string;
    readonly actor?: string;
    readonly details?: { readonly assertion?: unknown };
    readonly rules?: readonly unknown[];
  }>;
  readonly access_token: string;
  readonly error: string;
  readonly error_description: string;
}

const headers = async (space = SPACE) => ({
  authorization: `Bearer ${await service.loginToken([space])}`,
  'x-service-space-id': space,
  'content-type': 'application/json',
});

const call = async (method: string, path: string, body?: unknown, space = SPACE) => {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: await headers(space),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Answer };
};

/** The jwt-bearer grant as a workload sends it: the assertion, the space, no client secret. */
const grant = async (assertion: string, space = SPACE) => {
  const response = await service.post(
    '/v1/credential/token',
    { grant_type: JWT_BEARER, assertion, audience: AUDIENCE },
    { 'x-service-space-id': space },
  );
  return { status: response.status, body: (await response.json()) as Answer };
};

/** The claims each platform writes (Kubernetes 1.29+, SPIRE, GitHub Actions). */
const kubernetesClaims = (serviceAccount = 'checkout') => ({
  aud: [OURS],
  sub: `system:serviceaccount:shop:${serviceAccount}`,
  'kubernetes.io': {
    namespace: 'shop',
    node: { name: 'node-1', uid: crypto.randomUUID() },
    pod: { name: `${serviceAccount}-7d9f-abcde`, uid: crypto.randomUUID() },
    serviceaccount: { name: serviceAccount, uid: crypto.randomUUID() },
  },
});
const spiffeClaims = () => ({ aud: [OURS], sub: 'spiffe://shop.example/ns/shop/sa/payments' });
const githubClaims = (ref = 'refs/heads/main') => ({
  aud: OURS,
  sub: `repo:shop-org/storefront:ref:${ref}`,
  repository: 'shop-org/storefront',
  repository_owner: 'shop-org',
  ref,
  ref_type: 'branch',
  workflow: 'deploy',
  event_name: 'push',
  job_workflow_ref: `shop-org/storefront/.github/workflows/deploy.yml@${ref}`,
  runner_environment: 'github-hosted',
});

const trust = async (
  issuer: LocalIssuer,
  rule: Record<string, unknown>,
  space = SPACE,
  more: Record<string, unknown> = {},
) => {
  // The admin finds the keys where the platform's discovery document says.
  const discovery = (await (
    await fetch(`${issuer.baseUrl}/.well-known/openid-configuration`)
  ).json()) as { jwks_uri: string };
  return call(
    'POST',
    '/v1/trusted-issuers',
    { iss: issuer.iss, jwks_uri: discovery.jwks_uri, audience: OURS, rules: [rule], ...more },
    space,
  );
};

beforeAll(async () => {
  service = await startTestService({
    FAILED_AUTH_LIMIT_PER_MINUTE: '20', // per space and address: the refusals above stay under it
  });
  kubernetes = await startLocalIssuer({
    iss: 'https://kubernetes.default.svc.cluster.local',
    alg: 'RS256',
  });
  spiffe = await startLocalIssuer({ alg: 'ES256' });
  github = await startLocalIssuer({
    iss: 'https://token.actions.githubusercontent.com',
    alg: 'RS256',
  });
  for (const name of ['checkout', 'payments', 'deployer']) {
    clients[name] = (await createCredentialVia(service, SPACE, name)).client_id;
  }
  const added = [
    await trust(
      kubernetes,
      {
        id: 'checkout-sa',
        claims: {
          'kubernetes.io/namespace': 'shop',
          'kubernetes.io/serviceaccount/name': 'checkout',
        },
        client_id: clients.checkout,
      },
      SPACE,
      // Kubernetes mints projected tokens for 10 minutes at least: this issuer's own bound.
      { max_lifetime_seconds: 600 },
    ),
    await trust(spiffe, {
      id: 'payments-svid',
      claims: { sub: 'spiffe://shop.example/ns/shop/*' },
      client_id: clients.payments,
    }),
    await trust(github, {
      id: 'main-deploys',
      claims: { repository: 'shop-org/storefront', ref: 'refs/heads/main' },
      client_id: clients.deployer,
    }),
  ];
  for (const answer of added) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
}, 60_000);

describe('trusted issuers at the jwt-bearer grant', () => {
  it.each([
    [
      'a Kubernetes projected service-account token',
      () => kubernetes.mint(kubernetesClaims(), { lifetimeSeconds: 600 }),
      'checkout',
      'checkout-sa',
    ],
    ['a SPIFFE JWT-SVID', () => spiffe.mint(spiffeClaims()), 'payments', 'payments-svid'],
    [
      'a GitHub Actions OIDC token',
      () => github.mint(githubClaims(), { lifetimeSeconds: 300 }),
      'deployer',
      'main-deploys',
    ],
  ])(
    '%s buys a private token with no secret of ours, verified by our JWKS, its evidence audited',
    async (_shape, mint, client, rule) => {
      const assertion = await mint();
      const answer = await grant(assertion);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
      const { payload } = await jwtVerify(answer.body.access_token, jwks, {
        issuer: OURS,
        audience: AUDIENCE,
      });
      expect(payload).toMatchObject({ client_id: clients[client], token_kind: 'private' });
      const asserted = decodeJwt(assertion);
      const audit = await call(
        'GET',
        `/v1/audit/events?event_type=private-token-issued&client_id=${clients[client]}`,
      );
      expect(audit.status).toBe(200);
      const entry = audit.body.items.find((item) => item.jti === payload.jti);
      expect(entry?.details?.assertion).toMatchObject({
        iss: asserted.iss,
        sub: asserted.sub,
        jti: asserted.jti,
        rule,
      });
      // Never the assertion itself, anywhere in the log.
      const log = await service.database.db.selectFrom('events').select(['data']).execute();
      expect(JSON.stringify(log)).not.toContain(assertion.split('.')[2]);
    },
  );

  it('an unchanged openid-client performs the grant (genericGrantRequest)', async () => {
    const config = new oauth.Configuration(
      { issuer: OURS, token_endpoint: `${OURS}/v1/credential/token` },
      clients.deployer!,
      undefined,
      oauth.None(),
    );
    config[oauth.customFetch] = (url, options) =>
      fetch(url.replace(OURS, service.baseUrl), {
        ...(options as RequestInit),
        headers: { ...options.headers, 'x-service-space-id': SPACE },
      });
    oauth.allowInsecureRequests(config);
    const tokens = await oauth.genericGrantRequest(config, JWT_BEARER, {
      assertion: await github.mint(githubClaims()),
      audience: AUDIENCE,
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: clients.deployer });
  });

  it("refuses a client_id sent beside the assertion that is not the matched rule's", async () => {
    const answer = await service.post(
      '/v1/credential/token',
      {
        grant_type: JWT_BEARER,
        assertion: await github.mint(githubClaims()),
        audience: AUDIENCE,
        client_id: clients.checkout,
      },
      { 'x-service-space-id': SPACE },
    );
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error_description: string }).error_description).toMatch(
      /^client_id: /,
    );
  });

  const refusedFor = async (assertion: string, claim: string, space = SPACE) => {
    const answer = await grant(assertion, space);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toBe('invalid_grant');
    expect(answer.body.error_description).toMatch(new RegExp(`^${claim}: `));
  };

  it("refuses a token signed by another issuer's key", async () => {
    await refusedFor(await github.mintAs(spiffe.iss, spiffeClaims()), 'signature');
  });

  it('refuses a replayed jti: an assertion buys one token', async () => {
    const assertion = await spiffe.mint(spiffeClaims());
    expect((await grant(assertion)).status).toBe(200);
    await refusedFor(assertion, 'jti');
  });

  it('refuses an expired assertion', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refusedFor(
      await spiffe.mint({ ...spiffeClaims(), iat: now - 600, exp: now - 120 }),
      'exp',
    );
  });

  it("refuses an assertion that lives longer than its issuer's bound, or the default one", async () => {
    // An hour: Kubernetes' default for a projected token, a stored secret again.
    await refusedFor(await kubernetes.mint(kubernetesClaims(), { lifetimeSeconds: 3600 }), 'exp');
    // What the Kubernetes issuer may mint, an issuer with no bound of its own may not (300 s).
    await refusedFor(await spiffe.mint(spiffeClaims(), { lifetimeSeconds: 600 }), 'exp');
  });

  it('refuses an issuer bound above JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS', async () => {
    const theirs = await startLocalIssuer({ alg: 'ES256' });
    const rule = { id: 'x', claims: { sub: 'a' }, client_id: clients.checkout };
    const answer = await trust(theirs, rule, SPACE, { max_lifetime_seconds: 3600 });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('max_lifetime_seconds: at most 600');
  });

  it('refuses an aud that is not ours, and an aud of several values', async () => {
    await refusedFor(
      await github.mint({ ...githubClaims(), aud: 'https://elsewhere.example' }),
      'aud',
    );
    await refusedFor(
      await github.mint({ ...githubClaims(), aud: [OURS, 'https://elsewhere.example'] }),
      'aud',
    );
  });

  it('refuses a token whose claims no rule matches', async () => {
    await refusedFor(await github.mint(githubClaims('refs/heads/feature')), 'sub');
    await refusedFor(
      await kubernetes.mint(kubernetesClaims('intruder'), { lifetimeSeconds: 600 }),
      'sub',
    );
  });

  it('refuses a token of an issuer another space trusts', async () => {
    const theirs = await startLocalIssuer({ alg: 'ES256' });
    const client = (await createCredentialVia(service, OTHER_SPACE, 'theirs')).client_id;
    const added = await trust(
      theirs,
      { id: 'any', claims: { sub: 'workload' }, client_id: client },
      OTHER_SPACE,
    );
    expect(added.status).toBe(201);
    const assertion = await theirs.mint({ aud: OURS, sub: 'workload' });
    // Answered as a bad signature is: a caller cannot probe which issuers a space trusts.
    await refusedFor(assertion, 'signature');
    const forged = await grant(await github.mintAs(spiffe.iss, spiffeClaims()));
    expect((await grant(assertion)).body.error_description).toBe(forged.body.error_description);
    expect((await grant(assertion, OTHER_SPACE)).status).toBe(200);
  });

  it('counts refusals in the failed-authentication limits, as a wrong secret', async () => {
    const theirs = await startLocalIssuer({ alg: 'ES256' });
    const client = (await createCredentialVia(service, LOCKOUT_SPACE, 'locked')).client_id;
    await trust(
      theirs,
      { id: 'any', claims: { sub: 'workload' }, client_id: client },
      LOCKOUT_SPACE,
    );
    const statuses: number[] = [];
    for (let i = 0; i < 22; i += 1) {
      statuses.push(
        (
          await grant(
            await theirs.mint({ aud: 'https://elsewhere.example', sub: 'workload' }),
            LOCKOUT_SPACE,
          )
        ).status,
      );
    }
    expect(statuses.slice(0, 20).every((status) => status === 400)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // As for a secret, the lockout answers only failures: the right assertion is still served,
    // so one failing pod behind a cluster's NAT address cannot lock out the others.
    expect(
      (await grant(await theirs.mint({ aud: OURS, sub: 'workload' }), LOCKOUT_SPACE)).status,
    ).toBe(200);
  });

  it('records a refusal as the failed authentication of the client it claimed to be, naming the claim', async () => {
    // Signed by another key, claiming to be the payments workload: that client's to see.
    await refusedFor(await github.mintAs(spiffe.iss, spiffeClaims()), 'signature');
    // No rule matches, no client named: counted, and recorded against no client.
    await refusedFor(await spiffe.mint({ ...spiffeClaims(), sub: 'spiffe://elsewhere/x' }), 'sub');
    const audit = await call(
      'GET',
      `/v1/audit/events?event_type=client-authentication-failed&client_id=${clients.payments}`,
    );
    expect(audit.body.items.map((item) => item.details)).toContainEqual({
      reason: 'assertion_invalid',
      claim: 'signature',
    });
  });

  it('admins change and remove an issuer, each an event naming who; a removed issuer is refused', async () => {
    const listed = await call('GET', '/v1/trusted-issuers');
    const entry = listed.body.items.find((item) => item.iss === github.iss)!;
    const { issuer_id: id, ...definition } = entry;
    const changed = await call('PATCH', `/v1/trusted-issuers/${id}`, {
      ...definition,
      rules: [
        ...(definition.rules ?? []),
        {
          id: 'release-tags',
          claims: { repository: 'shop-org/storefront', ref: 'refs/tags/*' },
          client_id: clients.deployer,
        },
      ],
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await grant(await github.mint(githubClaims('refs/tags/v1.2.0')))).status).toBe(200);
    expect((await call('DELETE', `/v1/trusted-issuers/${id}`)).status).toBe(204);
    await refusedFor(await github.mint(githubClaims()), 'signature');
    for (const type of [
      'trusted-issuer-added',
      'trusted-issuer-changed',
      'trusted-issuer-removed',
    ]) {
      const audit = await call('GET', `/v1/audit/events?event_type=${type}`);
      expect(audit.body.items.length, type).toBeGreaterThan(0);
      expect(audit.body.items[0]?.actor, type).toBe('user:alice');
    }
  });

  it("refuses a jwks_uri the audit sinks' SSRF rules refuse (the metadata service)", async () => {
    const answer = await call('POST', '/v1/trusted-issuers', {
      iss: 'https://ci.example',
      jwks_uri: 'http://169.254.169.254/latest/meta-data/jwks',
      audience: OURS,
      rules: [{ id: 'x', claims: { sub: 'a' }, client_id: clients.checkout }],
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('jwks_uri');
  });

  it('refuses a rule naming a credential of another space, and an audience not ours', async () => {
    const theirs = (await createCredentialVia(service, OTHER_SPACE, 'not-yours')).client_id;
    const stolen = await trust(
      spiffe,
      { id: 'x', claims: { sub: 'a' }, client_id: theirs },
      LOCKOUT_SPACE,
    );
    expect(stolen.status).toBe(400);
    expect(JSON.stringify(stolen.body)).toContain('client_id');
    const foreign = await call('POST', '/v1/trusted-issuers', {
      iss: 'https://ci.example',
      jwks_uri: spiffe.jwksUri,
      audience: 'https://elsewhere.example',
      rules: [{ id: 'x', claims: { sub: 'a' }, client_id: clients.checkout }],
    });
    expect(foreign.status).toBe(400);
    expect(JSON.stringify(foreign.body)).toContain('audience');
  });
});

describe("a trusted issuer's assertion as client authentication (RFC 7523 §2.2)", () => {
  /** client_credentials as a workload sends it with federated-jwt: no secret, no key of its own. */
  const authenticated = async (assertion: string, clientId: string | undefined) => {
    const response = await service.post('/v1/credential/token', {
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      ...(clientId === undefined ? {} : { client_id: clientId }),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const refusedAs = async (assertion: string, clientId: string | undefined, claim: string) => {
    const answer = await authenticated(assertion, clientId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    expect(answer.body.error_description).toMatch(new RegExp(`^${claim}: `));
  };
  // rfc7523bis: to authenticate a client, aud is our issuer as one string, never a list.
  const k8s = (serviceAccount?: string) =>
    kubernetes.mint({ ...kubernetesClaims(serviceAccount), aud: OURS }, { lifetimeSeconds: 600 });

  it('discovery lists federated-jwt beside private_key_jwt', async () => {
    const metadata = (await (
      await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as { token_endpoint_auth_methods_supported: string[] };
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['private_key_jwt', 'federated-jwt']),
    );
  });

  it("authenticates the client its rule names, the issuance recording the assertion's evidence", async () => {
    const assertion = await k8s();
    const answer = await authenticated(assertion, clients.checkout);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const { jti } = decodeJwt(answer.body.access_token);
    expect(decodeJwt(answer.body.access_token).client_id).toBe(clients.checkout);
    const audit = await call(
      'GET',
      `/v1/audit/events?event_type=private-token-issued&client_id=${clients.checkout}`,
    );
    const entry = audit.body.items.find((item) => item.jti === jti);
    expect(entry?.details?.assertion).toMatchObject({
      iss: kubernetes.iss,
      jti: decodeJwt(assertion).jti,
      rule: 'checkout-sa',
    });
    // The same assertion twice is refused, by the same once-used ids as the grant's.
    await refusedAs(assertion, clients.checkout, 'jti');
    // Introspection and revocation take it too (discovery lists it there): a fresh one each.
    for (const endpoint of ['/v1/introspect', '/v1/revoke']) {
      const response = await service.post(endpoint, {
        token: answer.body.access_token,
        client_id: clients.checkout,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await k8s(),
      });
      expect(response.status, endpoint).toBe(200);
    }
  });

  it('refuses a client_id the matched rule does not name, and none at all', async () => {
    await refusedAs(await k8s(), clients.payments, 'client_id');
    await refusedAs(await k8s(), undefined, 'client_id');
  });

  it("refuses another issuer's key, an aud not ours, a claim no rule matches, an expired one", async () => {
    await refusedAs(
      await github.mintAs(kubernetes.iss, kubernetesClaims()),
      clients.checkout,
      'signature',
    );
    await refusedAs(
      await kubernetes.mint({ ...kubernetesClaims(), aud: ['https://elsewhere.example'] }),
      clients.checkout,
      'aud',
    );
    // The grant takes a list of one; client authentication takes our issuer alone, one string.
    await refusedAs(await kubernetes.mint(kubernetesClaims()), clients.checkout, 'aud');
    await refusedAs(await k8s('intruder'), clients.checkout, 'sub');
    // Each recorded as the named client's failed authentication, as a wrong secret is.
    const audit = await call(
      'GET',
      `/v1/audit/events?event_type=client-authentication-failed&client_id=${clients.checkout}`,
    );
    const claims = audit.body.items.map((item) => (item.details as { claim?: string }).claim);
    expect(claims).toEqual(expect.arrayContaining(['signature', 'aud', 'sub']));
    const now = Math.floor(Date.now() / 1000);
    await refusedAs(
      await spiffe.mint({ ...spiffeClaims(), iat: now - 600, exp: now - 120 }),
      clients.payments,
      'exp',
    );
  });
});
