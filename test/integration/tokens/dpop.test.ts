import { SignJWT, calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair } from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * DPoP (RFC 9449) with openid-client's own DPoP support, unchanged: a private token bound to the
 * server's key, a public token bought with it (bound to that key, or to a browser's), and what a
 * thief of either gets: nothing.
 */
const SPACE = 'space-dpop';
/** TOKEN_ISSUER of the test service: the only origin a proof may name. */
const ISSUER = 'http://token-authority.test';
let service: TestService;

beforeAll(async () => {
  // Failed proofs count against the address; this file sends many on purpose.
  service = await startTestService({ FAILED_AUTH_LIMIT_PER_MINUTE: '1000' });
});

/** Requests to the issuer's origin reach the test service, as they would through its proxy. */
const toService: oauth.CustomFetch = (url, options) =>
  fetch(url.replace(ISSUER, service.baseUrl), options as RequestInit);

async function clientWithDpop() {
  const credential = await createCredentialVia(service, SPACE);
  const config = new oauth.Configuration(
    {
      issuer: ISSUER,
      token_endpoint: `${ISSUER}/v1/credential/token`,
    },
    credential.client_id,
    undefined,
    oauth.ClientSecretBasic(credential.client_secret),
  );
  oauth.allowInsecureRequests(config);
  config[oauth.customFetch] = toService;
  const keys = await oauth.randomDPoPKeyPair('ES256');
  const dpop = oauth.getDPoPHandle(config, keys);
  const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey));
  return { config, dpop, jkt, credential };
}

const issueWith = (
  config: oauth.Configuration,
  token: string,
  dpop?: oauth.DPoPHandle,
  body = {},
) =>
  oauth.fetchProtectedResource(
    config,
    token,
    new URL(`${ISSUER}/v1/issue`),
    'POST',
    JSON.stringify({ customer_id: 'c-1', segment_id: 's-1', ...body }),
    new Headers({ 'content-type': 'application/json', 'x-service-space-id': SPACE }),
    dpop ? { DPoP: dpop } : undefined,
  );

/** A proof made by hand, for the cases a well-behaved library never produces. */
async function proofBy(key: CryptoKey, jwk: object, claims: Record<string, unknown>) {
  return new SignJWT({ jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .sign(key);
}

describe('DPoP-bound tokens (RFC 9449) with openid-client', () => {
  it('the grant binds the private token to the client key: token_type DPoP and cnf.jkt', async () => {
    const { config, dpop, jkt } = await clientWithDpop();
    const tokens = await oauth.clientCredentialsGrant(
      config,
      { audience: AUDIENCE },
      { DPoP: dpop },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    const metadata = (await (
      await fetch(`${service.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as { dpop_signing_alg_values_supported: string[] };
    expect(metadata.dpop_signing_alg_values_supported).toContain('ES256');
  });

  it('a bound private token buys a public token bound to the same key; introspection says so', async () => {
    const { config, dpop, jkt, credential } = await clientWithDpop();
    const tokens = await oauth.clientCredentialsGrant(
      config,
      { audience: AUDIENCE },
      { DPoP: dpop },
    );
    const response = await issueWith(config, tokens.access_token, dpop);
    expect(response.status).toBe(200);
    const issued = (await response.json()) as { token: string; token_type: string };
    expect(issued.token_type).toBe('DPoP');
    expect(decodeJwt(issued.token).cnf).toEqual({ jkt });
    const introspected = await service.post('/v1/introspect', {
      ...credential,
      token: issued.token,
    });
    expect(await introspected.json()).toMatchObject({
      active: true,
      token_type: 'DPoP',
      cnf: { jkt },
    });
    const { rows } = await service.database.pool.query<{ jkt: string }>(
      `SELECT data->>'cnf_jkt' AS jkt FROM events WHERE event_type = 'public-token-issued'
        AND data->>'client_id' = $1`,
      [credential.client_id],
    );
    expect(rows).toEqual([{ jkt }]);
  });

  it('a stolen bound private token is refused as Bearer, and with a proof by another key', async () => {
    const { config, dpop } = await clientWithDpop();
    const tokens = await oauth.clientCredentialsGrant(
      config,
      { audience: AUDIENCE },
      { DPoP: dpop },
    );
    const asBearer = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      { authorization: `Bearer ${tokens.access_token}`, 'x-service-space-id': SPACE },
    );
    expect(asBearer.status).toBe(401);
    const thief = await clientWithDpop();
    // RFC 9449 §7.1: a resource answers a bad proof with a 401 DPoP challenge, which
    // openid-client surfaces as such.
    const refused = await issueWith(config, tokens.access_token, thief.dpop).then(
      () => undefined,
      (error: unknown) =>
        error as { cause?: { scheme: string; parameters: { error?: string } }[]; status?: number },
    );
    expect(refused?.status).toBe(401);
    expect(refused?.cause?.[0]).toMatchObject({
      scheme: 'dpop',
      parameters: { error: 'invalid_dpop_proof' },
    });
  });

  it('a replayed proof, a proof for another URL and a stale one are refused', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const token = await privateTokenVia(service, await createCredentialVia(service, SPACE));
    const htu = `${ISSUER}/v1/issue`;
    const send = (proof: string) =>
      service.post(
        '/v1/issue',
        { customer_id: 'c', segment_id: 's' },
        { authorization: `Bearer ${token}`, 'x-service-space-id': SPACE, dpop: proof },
      );
    const proof = await proofBy(privateKey, jwk, { htm: 'POST', htu });
    const first = await send(proof);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { token_type: string }).token_type).toBe('DPoP');
    expect((await send(proof)).status).toBe(401);
    expect(
      (
        await send(
          await proofBy(privateKey, jwk, {
            htm: 'POST',
            htu: 'https://elsewhere.example/v1/issue',
          }),
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await send(
          await proofBy(privateKey, jwk, {
            htm: 'POST',
            htu,
            iat: Math.floor(Date.now() / 1000) - 600,
          }),
        )
      ).status,
    ).toBe(401);
  });

  it('a proof for another deployment, sent with its Host, binds nothing: htu is the configured origin', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const credential = await createCredentialVia(service, SPACE);
    const grant = async (htu: string, headers: Record<string, string> = {}) =>
      service.post(
        '/v1/credential/token',
        { ...credential, audience: AUDIENCE, grant_type: 'client_credentials' },
        { dpop: await proofBy(privateKey, jwk, { htm: 'POST', htu }), ...headers },
      );
    const other = 'http://other-deployment.example/v1/credential/token';
    const spoofed = await grant(other, {
      host: 'other-deployment.example',
      'x-forwarded-host': 'other-deployment.example',
    });
    expect(spoofed.status).toBe(400);
    expect(await spoofed.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    // Nor the address it was reached at: only the public origin.
    expect((await grant(`${service.baseUrl}/v1/credential/token`)).status).toBe(400);
    expect((await grant(`${ISSUER}/v1/credential/token`)).status).toBe(200);
  });

  it("failed proofs spend the address's budget of failures: 429 once spent, a valid proof still served", async () => {
    const strict = await startTestService({ FAILED_AUTH_LIMIT_PER_MINUTE: '3' });
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const credential = await createCredentialVia(strict, SPACE);
    const grant = async (htu: string) =>
      strict.post(
        '/v1/credential/token',
        { ...credential, audience: AUDIENCE, grant_type: 'client_credentials' },
        { dpop: await proofBy(privateKey, jwk, { htm: 'POST', htu }) },
      );
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await grant('https://elsewhere.example/t')).status);
    expect(statuses).toEqual([400, 400, 400, 429, 429]);
    expect((await grant(`${ISSUER}/v1/credential/token`)).status).toBe(200);
  });

  it('dpop_jkt binds the public token to a browser key instead of the server key', async () => {
    const { config, dpop } = await clientWithDpop();
    const tokens = await oauth.clientCredentialsGrant(
      config,
      { audience: AUDIENCE },
      { DPoP: dpop },
    );
    const browser = await calculateJwkThumbprint(
      await exportJWK((await generateKeyPair('ES256')).publicKey),
    );
    const response = await issueWith(config, tokens.access_token, dpop, { dpop_jkt: browser });
    expect(response.status).toBe(200);
    expect(decodeJwt(((await response.json()) as { token: string }).token).cnf).toEqual({
      jkt: browser,
    });
  });

  it('a credential that requires DPoP issues no bearer public token', async () => {
    const login = await service.loginToken([SPACE]);
    const created = await fetch(`${service.baseUrl}/v1/credential`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${login}`,
        'x-service-space-id': SPACE,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'spa', description: 'bound only', require_dpop: true }),
    });
    const credential = (await created.json()) as { client_id: string; client_secret: string };
    const token = await privateTokenVia(service, credential);
    const issue = (body: object) =>
      service.post(
        '/v1/issue',
        { customer_id: 'c', segment_id: 's', ...body },
        { authorization: `Bearer ${token}`, 'x-service-space-id': SPACE },
      );
    const bearer = await issue({});
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toMatchObject({ code: 'invalid_dpop_proof' });
    const browser = await calculateJwkThumbprint(
      await exportJWK((await generateKeyPair('ES256')).publicKey),
    );
    const bound = await issue({ dpop_jkt: browser });
    expect(bound.status).toBe(200);
  });

  it('hostile DPoP input gets a 4xx that says what is wrong, never a 500', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const grant = (dpop: string) =>
      service.post(
        '/v1/credential/token',
        { ...credential, audience: AUDIENCE, grant_type: 'client_credentials' },
        { dpop },
      );
    for (const proof of ['garbage', 'a.b.c', 'x'.repeat(9000), 'eyJhbGciOiJub25lIn0.e30.']) {
      const response = await grant(proof);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'invalid_dpop_proof' });
    }
    const token = await privateTokenVia(service, credential);
    const issue = (headers: Record<string, string>) =>
      service.post(
        '/v1/issue',
        { customer_id: 'c', segment_id: 's' },
        {
          'x-service-space-id': SPACE,
          ...headers,
        },
      );
    expect((await issue({ authorization: `Bearer ${token}`, dpop: 'a, b' })).status).toBe(401);
    expect((await issue({ authorization: `DPoP ${token}` })).status).toBe(401);
    const badJkt = await issue({ authorization: `Bearer ${token}` }).then(() =>
      service.post(
        '/v1/issue',
        { customer_id: 'c', segment_id: 's', dpop_jkt: 'short' },
        { authorization: `Bearer ${token}`, 'x-service-space-id': SPACE },
      ),
    );
    expect(badJkt.status).toBe(400);
    expect(await badJkt.text()).toContain('dpop_jkt');
  });
});
