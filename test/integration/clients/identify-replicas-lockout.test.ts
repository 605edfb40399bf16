import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties } from '../../support/delegation.js';
import { startLocalIssuer } from '../../support/local-issuer.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import {
  AUDIENCE,
  createCredentialVia,
  startSecondInstance,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/** Stop 73's hostile review, kept: replay across replicas, and lockouts an attacker on a shared address sets. */
const A = 'space-attack-replicas';
const B = 'space-attack-replicas-b';
const ISSUER = 'http://token-authority.test';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const SCOPES = ['products:read', 'cart:write'];
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let one: TestService;
let two: TestService;
const parties = delegationParties(() => one, A);

beforeAll(async () => {
  const env = {
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '3',
  };
  one = await startTestService(env);
  two = await startSecondInstance(one, env);
});

const admin = async (space: string) => ({
  authorization: `Bearer ${await one.loginToken([space])}`,
  'x-service-space-id': space,
});

async function keyedClient(space: string) {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const response = await one.post(
    '/v1/credential',
    { name: 'keyed', description: 'keyed', scopes: SCOPES, jwks: { keys: [jwk] } },
    await admin(space),
  );
  expect(response.status).toBe(201);
  return { clientId: ((await response.json()) as { client_id: string }).client_id, privateKey };
}

const ownAssertion = (clientId: string, key: CryptoKey) =>
  new SignJWT({ jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(ISSUER)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);

describe('replay across replicas', () => {
  it('one private_key_jwt assertion sent to both replicas at once buys one token', async () => {
    const client = await keyedClient(A);
    const body = {
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await ownAssertion(client.clientId, client.privateKey),
    };
    const answers = await Promise.all(
      [one, two, one, two].map((replica) => replica.post('/v1/credential/token', body)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401]);
  });

  it('one DPoP proof sent to both replicas at once binds one token', async () => {
    const credential = await createCredentialVia(one, A);
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(publicKey);
    await calculateJwkThumbprint(jwk);
    const proof = await new SignJWT({
      jti: crypto.randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      htm: 'POST',
      htu: `${ISSUER}/v1/credential/token`,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(privateKey);
    const answers = await Promise.all(
      [one, two, one, two].map((replica) =>
        replica.post(
          '/v1/credential/token',
          { ...credential, grant_type: 'client_credentials', audience: AUDIENCE },
          { dpop: proof },
        ),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
  });

  it('one trusted issuer’s assertion sent to both replicas at once buys one token', async () => {
    const agent = await createCredentialVia(one, A);
    const spiffe = await startLocalIssuer({ alg: 'ES256' });
    const trusted = await one.post(
      '/v1/trusted-issuers',
      {
        iss: spiffe.iss,
        jwks_uri: spiffe.jwksUri,
        audience: ISSUER,
        rules: [{ id: 'w', claims: { sub: 'spiffe://x/w' }, client_id: agent.client_id }],
      },
      await admin(A),
    );
    expect(trusted.status).toBe(201);
    const assertion = await spiffe.mint({ aud: ISSUER, sub: 'spiffe://x/w' });
    const body = {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion,
      audience: AUDIENCE,
    };
    const answers = await Promise.all(
      [one, two, one, two].map((replica) =>
        replica.post('/v1/credential/token', body, { 'x-service-space-id': A }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
  });
});

describe('lockouts from a shared address (FAILED_AUTH_LIMIT_PER_MINUTE 3)', () => {
  it('bad actor JWTs naming the victim do not lock the victim out of its right proof', async () => {
    const { credential, privateToken, issue, accessToken, delegate } = parties;
    const victim = await keyedClient(A);
    const storefront = await credential(SCOPES);
    const subject = await accessToken(
      await issue(await privateToken(storefront, SCOPES), { may_act: victim.clientId }),
    );
    const attacker = (await generateKeyPair('ES256')).privateKey;
    const statuses = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await delegate(subject, await ownAssertion(victim.clientId, attacker), {
        actor_token_type: JWT_TYPE,
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(-1)).toEqual([429]);
    // The victim, from the same address: its good assertion at the token endpoint and as actor.
    const token = await two.post('/v1/credential/token', {
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await ownAssertion(victim.clientId, victim.privateKey),
    });
    expect(token.status).toBe(200);
    const acted = await delegate(subject, await ownAssertion(victim.clientId, victim.privateKey), {
      actor_token_type: JWT_TYPE,
    });
    expect(acted.status, await acted.clone().text()).toBe(200);
  });

  it('garbage jwt-bearer assertions to a space do not lock its workloads out', async () => {
    const agent = await createCredentialVia(one, B);
    const spiffe = await startLocalIssuer({ alg: 'ES256' });
    const trusted = await one.post(
      '/v1/trusted-issuers',
      {
        iss: spiffe.iss,
        jwks_uri: spiffe.jwksUri,
        audience: ISSUER,
        rules: [{ id: 'w', claims: { sub: 'spiffe://x/w' }, client_id: agent.client_id }],
      },
      await admin(B),
    );
    expect(trusted.status).toBe(201);
    const grant = (assertion: string) =>
      one.post(
        '/v1/credential/token',
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion,
          audience: AUDIENCE,
        },
        { 'x-service-space-id': B },
      );
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await grant('x.y.z')).status);
    expect(statuses.slice(-1)).toEqual([429]);
    const good = await grant(await spiffe.mint({ aud: ISSUER, sub: 'spiffe://x/w' }));
    expect(good.status, await good.clone().text()).toBe(200);
  });
});
