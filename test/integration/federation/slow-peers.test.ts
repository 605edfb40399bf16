import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { afterFile } from '../../support/after-file.js';
import {
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * A caller told "no" (503 at the request deadline) while its handler waited on a slow JWKS: the
 * handler went on once the JWKS answered, spent the assertion's jti and issued a token no caller
 * received. Past its deadline a request writes nothing; the caller may retry the same assertion.
 */
const SPACE = 'space-deadline';
const OURS = 'http://token-authority.test';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const DEADLINE_MS = 2000;
const JWKS_DELAY_MS = 4000;
let service: TestService;
let jwksUrl: string;
let sign: (jti: string) => Promise<string>;
let jwksAnswered = 0;

/** An issuer's JWKS endpoint that holds its first answer past the request deadline. */
async function slowIssuer(): Promise<void> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
  let first = true;
  const server = http.createServer((_request, response) => {
    const delay = first ? JWKS_DELAY_MS : 0;
    first = false;
    setTimeout(() => {
      jwksAnswered += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterFile(() => new Promise<void>((resolve) => server.close(() => resolve())));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  sign = (jti) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ aud: OURS, sub: 'workload', jti, iat: now, exp: now + 120 })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('https://slow-issuer.example')
      .sign(privateKey);
  };
}

const issued = async () =>
  (
    await service.database.db
      .selectFrom('events')
      .select('event_id')
      .where('space_id', '=', SPACE)
      .where('event_type', '=', 'private-token-issued')
      .execute()
  ).length;

beforeAll(async () => {
  await slowIssuer();
  service = await startTestService({
    REQUEST_DEADLINE_MS: String(DEADLINE_MS),
    // The fetch outlives the request: what the handler does after the caller's 503 is the test.
    OUTBOUND_FETCH_TIMEOUT_MS: '10000',
    TRUSTED_ISSUER_MAX_PER_SPACE: '1',
    METADATA_DOMAIN_MAX_PER_SPACE: '1',
  });
  clientId = (await createCredentialVia(service, SPACE, 'workload')).client_id;
  const added = await trust('https://slow-issuer.example');
  expect(added.status, await added.text()).toBe(201);
}, 60_000);

let clientId: string;
const admin = async (path: string, body: unknown) =>
  fetch(`${service.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
const trust = (iss: string) =>
  admin('/v1/trusted-issuers', {
    iss,
    jwks_uri: jwksUrl,
    audience: OURS,
    rules: [{ id: 'all', claims: { sub: 'workload' }, client_id: clientId }],
  });

describe('a request past its deadline', () => {
  it('gets 503 and records nothing, even after the JWKS answers; its assertion is still good', async () => {
    const assertion = await sign(crypto.randomUUID());
    const grant = () =>
      service.post(
        '/v1/credential/token',
        { grant_type: JWT_BEARER, assertion, audience: 'storefront.test' },
        { 'x-service-space-id': SPACE },
      );
    const late = await grant();
    expect(late.status).toBe(503);
    // The JWKS answers, the handler goes on: give it ample time to have written, had it.
    while (jwksAnswered === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await issued()).toBe(0);
    // The jti was not spent: the same assertion, keys now held, buys its token.
    const retried = await grant();
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(await issued()).toBe(1);
  }, 30_000);
});

describe("a space's trusted issuers and metadata domains", () => {
  it('are bounded as its sinks are: one past the setting is a 409 naming it', async () => {
    const another = await trust('https://another-issuer.example');
    expect(another.status).toBe(409);
    expect(await another.text()).toMatch(/TRUSTED_ISSUER_MAX_PER_SPACE/);
    expect((await admin('/v1/metadata-client-domains', { domain: 'agents.example' })).status).toBe(
      201,
    );
    const more = await admin('/v1/metadata-client-domains', { domain: 'more.example' });
    expect(more.status).toBe(409);
    expect(await more.text()).toMatch(/METADATA_DOMAIN_MAX_PER_SPACE/);
  });
});
