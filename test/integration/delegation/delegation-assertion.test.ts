import { SignJWT, decodeJwt, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { delegationParties } from '../../support/delegation.js';
import { startLocalIssuer } from '../../support/local-issuer.js';
import { TEST_SCOPE_CATALOG } from '../../support/scope-catalog.js';
import { startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 55: the agent proves itself by a private_key_jwt assertion of its own credential (RFC
 * 8693 actor_token_type jwt) instead of a private token: once each, by its keys, and only the
 * agent the customer's may_act names.
 */
const SPACE = 'space-agent-assertion';
const ISSUER = 'http://token-authority.test';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const SCOPES = ['products:read', 'cart:write'];

let service: TestService;
const parties = delegationParties(() => service, SPACE);
const { credential, privateToken, issue, delegate, accessToken, refusal } = parties;

beforeAll(async () => {
  service = await startTestService({
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
    FAILED_AUTH_LIMIT_PER_MINUTE: '1000',
  });
});

/** An agent known by its public key alone (no secret), and the private key it signs with. */
async function keyedAgent() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  const response = await service.post(
    '/v1/credential',
    { name: 'agent', description: 'keyed agent', scopes: SCOPES, jwks: { keys: [jwk] } },
    {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
    },
  );
  expect(response.status).toBe(201);
  return { clientId: ((await response.json()) as { client_id: string }).client_id, privateKey };
}

/** A private_key_jwt assertion (RFC 7523 §3) as the agent signs it. */
const assertion = (clientId: string, key: CryptoKey, jti = crypto.randomUUID()) =>
  new SignJWT({ jti })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(ISSUER)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);

const asJwt = { actor_token_type: JWT_TYPE };

async function customerTokenFor(agent: string): Promise<string> {
  const storefront = await credential(SCOPES);
  return accessToken(await issue(await privateToken(storefront, SCOPES), { may_act: agent }));
}

describe('the actor proves itself by a client assertion (actor_token_type jwt)', () => {
  it('an assertion of the named agent’s keys gets the delegated token', async () => {
    const agent = await keyedAgent();
    const subject = await customerTokenFor(agent.clientId);
    const token = await accessToken(
      await delegate(subject, await assertion(agent.clientId, agent.privateKey), asJwt),
    );
    expect(decodeJwt(token)).toMatchObject({
      sub: 'c-42',
      client_id: agent.clientId,
      act: { sub: agent.clientId },
    });
  });

  it('a replayed assertion is refused', async () => {
    const agent = await keyedAgent();
    const subject = await customerTokenFor(agent.clientId);
    const once = await assertion(agent.clientId, agent.privateKey);
    expect((await delegate(subject, once, asJwt)).status).toBe(200);
    const problem = await refusal(await delegate(subject, once, asJwt));
    expect(problem).toMatchObject({ error: 'invalid_grant' });
    expect(problem.error_description).toMatch(/actor_token/);
  });

  it('an assertion signed by another key is refused', async () => {
    const agent = await keyedAgent();
    const subject = await customerTokenFor(agent.clientId);
    const { privateKey: wrong } = await generateKeyPair('ES256');
    const problem = await refusal(
      await delegate(subject, await assertion(agent.clientId, wrong), asJwt),
    );
    expect(problem).toMatchObject({ error: 'invalid_grant' });
  });

  it('an agent the customer’s may_act does not name is refused', async () => {
    const named = await keyedAgent();
    const other = await keyedAgent();
    const subject = await customerTokenFor(named.clientId);
    const problem = await refusal(
      await delegate(subject, await assertion(other.clientId, other.privateKey), asJwt),
    );
    expect(problem.error).toBe('invalid_grant');
    expect(problem.error_description).toMatch(/may_act does not name/);
  });

  it('a JWT of no client, or no JWT at all, is refused', async () => {
    const agent = await keyedAgent();
    const subject = await customerTokenFor(agent.clientId);
    const stranger = await new SignJWT({ jti: 'x' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('https://nobody.example')
      .setSubject('nobody')
      .setAudience(ISSUER)
      .setExpirationTime('60s')
      .sign((await generateKeyPair('ES256')).privateKey);
    expect((await refusal(await delegate(subject, stranger, asJwt))).error).toBe('invalid_grant');
    expect((await refusal(await delegate(subject, 'not-a-jwt', asJwt))).error).toBe(
      'invalid_grant',
    );
  });
});

/** The client-authentication-failed events the audit shows for a client. */
async function failuresOf(clientId: string) {
  const query = `event_type=client-authentication-failed&client_id=${clientId}`;
  const response = await fetch(`${service.baseUrl}/v1/audit/events?${query}`, {
    headers: {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
    },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    items: { actor: string; client_ip: string | null; details: Record<string, unknown> }[];
  };
  return body.items;
}

describe('a refused actor assertion is a failed client authentication', () => {
  it('is recorded against the client it claimed to be, as at the token endpoint', async () => {
    const agent = await keyedAgent();
    const subject = await customerTokenFor(agent.clientId);
    const { privateKey: wrong } = await generateKeyPair('ES256');
    const problem = await refusal(
      await delegate(subject, await assertion(agent.clientId, wrong), asJwt),
    );
    expect(problem).toMatchObject({ error: 'invalid_grant' });
    expect(problem.error_description).toMatch(
      /^actor_token: not a good assertion of an active client's keys/,
    );
    const failures = await failuresOf(agent.clientId);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      actor: `client:${agent.clientId}`,
      details: { reason: 'assertion_invalid' },
    });
    expect(failures[0]!.client_ip).toEqual(expect.any(String));
  });

  it('a good assertion of a revoked agent is refused and recorded as at the token endpoint', async () => {
    const agent = await keyedAgent();
    const subject = await customerTokenFor(agent.clientId);
    const revoked = await fetch(`${service.baseUrl}/v1/credential/${agent.clientId}`, {
      method: 'DELETE',
      headers: {
        authorization: `Bearer ${await service.loginToken([SPACE])}`,
        'x-service-space-id': SPACE,
      },
    });
    expect(revoked.status).toBe(200);
    const problem = await refusal(
      await delegate(subject, await assertion(agent.clientId, agent.privateKey), asJwt),
    );
    expect(problem).toMatchObject({ error: 'invalid_grant' });
    expect(problem.error_description).toMatch(/^actor_token: .*an active client/);
    const failures = await failuresOf(agent.clientId);
    expect(failures.map((failure) => failure.details.reason)).toEqual(['credential_revoked']);
  });

  it('an accepted one records no failure', async () => {
    const agent = await keyedAgent();
    const subject = await customerTokenFor(agent.clientId);
    await accessToken(
      await delegate(subject, await assertion(agent.clientId, agent.privateKey), asJwt),
    );
    expect(await failuresOf(agent.clientId)).toEqual([]);
  });
});

describe('or by a trusted issuer’s token (a workload identity)', () => {
  it('a token matching a rule acts as the rule’s agent, and as no other', async () => {
    const agent = await credential(SCOPES);
    const spiffe = await startLocalIssuer({ alg: 'ES256' });
    const trusted = await service.post(
      '/v1/trusted-issuers',
      {
        iss: spiffe.iss,
        jwks_uri: spiffe.jwksUri,
        audience: ISSUER,
        rules: [
          {
            id: 'agent',
            claims: { sub: 'spiffe://shop.example/agent' },
            client_id: agent.client_id,
          },
        ],
      },
      {
        authorization: `Bearer ${await service.loginToken([SPACE])}`,
        'x-service-space-id': SPACE,
      },
    );
    expect(trusted.status).toBe(201);
    const svid = () => spiffe.mint({ aud: ISSUER, sub: 'spiffe://shop.example/agent' });
    const subject = await customerTokenFor(agent.client_id);
    const token = await accessToken(await delegate(subject, await svid(), asJwt));
    expect(decodeJwt(token)).toMatchObject({
      client_id: agent.client_id,
      act: { sub: agent.client_id },
    });
    const other = await customerTokenFor((await credential(SCOPES)).client_id);
    const problem = await refusal(await delegate(other, await svid(), asJwt));
    expect(problem.error_description).toMatch(/may_act does not name/);
    const replayed = await svid();
    expect((await delegate(subject, replayed, asJwt)).status).toBe(200);
    expect((await refusal(await delegate(subject, replayed, asJwt))).error).toBe('invalid_grant');
    // Signed by another key, claiming the rule's workload: the rule's client's failure to see.
    const forger = await startLocalIssuer({ alg: 'ES256' });
    const forged = await forger.mintAs(spiffe.iss, {
      aud: ISSUER,
      sub: 'spiffe://shop.example/agent',
    });
    const forgedRefusal = await refusal(await delegate(subject, forged, asJwt));
    expect(forgedRefusal.error_description).toMatch(/^actor_token: signature/);
    expect((await failuresOf(agent.client_id)).map((item) => item.details)).toContainEqual({
      reason: 'assertion_invalid',
      claim: 'signature',
    });
  });
});
