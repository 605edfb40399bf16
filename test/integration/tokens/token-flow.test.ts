import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { fullForm } from '../../../src/domain/stored-form.js';
import { readLog } from '#event-log/read-log.js';
import { LOG_START, type RecordedEvent } from '#event-log/types.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});

const ISSUER = 'http://token-authority.test';

async function allEvents(): Promise<RecordedEvent[]> {
  const page = await readLog(service.database.db, { after: LOG_START, limit: 100_000 });
  return [...page.events];
}

describe('the three operations end to end', () => {
  it('creates a credential, exchanges it for a private token, buys a public token, and records each in order', async () => {
    const login = await service.loginToken(['space-a']);
    const created = await service.post(
      '/v1/credential',
      { name: 'Web shop', description: 'Next.js storefront' },
      { authorization: `Bearer ${login}`, 'x-service-space-id': 'space-a' },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const credential = (await created.json()) as Record<string, string>;
    expect(credential).toMatchObject({
      name: 'Web shop',
      description: 'Next.js storefront',
      space_id: 'space-a',
    });
    expect(credential.client_id).toMatch(/^ci_[A-Za-z0-9_-]{22}$/);
    expect(credential.client_secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(credential.last_updated!)).not.toBeNaN();

    const tokenResponse = await service.post('/v1/credential/token', {
      client_id: credential.client_id,
      client_secret: credential.client_secret,
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    });
    expect(tokenResponse.status).toBe(200);
    expect(tokenResponse.headers.get('cache-control')).toBe('no-store');
    const privateBody = (await tokenResponse.json()) as {
      access_token: string;
      token_type: string;
      expires_in: number;
    };
    expect(privateBody.token_type).toBe('Bearer');
    expect(privateBody.expires_in).toBe(3600);

    // Verified exactly as a Storefront API would: keys fetched from our JWKS endpoint.
    const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
    const privateToken = await jwtVerify(privateBody.access_token, jwks, {
      issuer: ISSUER,
      audience: AUDIENCE,
      typ: 'at+jwt',
    });
    expect(privateToken.protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(privateToken.protectedHeader.kid).toBeTruthy();
    expect(privateToken.payload).toMatchObject({
      sub: credential.client_id,
      client_id: credential.client_id,
      space_id: 'space-a',
      token_kind: 'private',
    });
    expect(privateToken.payload.exp! - privateToken.payload.iat!).toBe(3600);

    const issued = await service.post(
      '/v1/issue',
      { customer_id: 'cust-42', segment_id: 'gold' },
      { authorization: `Bearer ${privateBody.access_token}`, 'x-service-space-id': 'space-a' },
    );
    expect(issued.status).toBe(200);
    const publicBody = (await issued.json()) as Record<string, unknown>;
    expect(publicBody).toMatchObject({
      token_type: 'Bearer',
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      expires_in: 900,
    });
    expect(publicBody.access_token).toBe(publicBody.token);
    const publicToken = await jwtVerify(publicBody.token as string, jwks, {
      issuer: ISSUER,
      audience: AUDIENCE,
      typ: 'at+jwt',
    });
    expect(publicToken.payload).toMatchObject({
      sub: 'cust-42',
      token_kind: 'public',
      customer_id: 'cust-42',
      segment_id: 'gold',
      space_id: 'space-a',
      client_id: credential.client_id,
      act: { sub: credential.client_id },
      parent_jti: privateToken.payload.jti,
    });

    const mine = (await allEvents()).filter(
      (event) => (event.data as { client_id?: string }).client_id === credential.client_id,
    );
    expect(mine.map((event) => event.type)).toEqual([
      'credential-created',
      'private-token-issued',
      'public-token-issued',
    ]);
    // Stored lean: the stream names the token, the event id is the request's, the client acts.
    const issuances = mine.slice(1);
    expect(issuances.map((event) => event.streamId)).toEqual([
      `token-${privateToken.payload.jti}`,
      `token-${publicToken.payload.jti}`,
    ]);
    for (const event of issuances) {
      expect(event.data).not.toHaveProperty('jti');
      expect(Object.keys(event.metadata)).not.toContain('actor');
      expect(Object.keys(event.metadata)).not.toContain('request_id');
    }
    // Read back in full form, the event says all of it.
    const [privateIssued, publicIssued] = issuances.map(fullForm);
    expect(privateIssued!.data).toMatchObject({
      jti: privateToken.payload.jti,
      audience: AUDIENCE,
    });
    expect(privateIssued!.metadata).toMatchObject({
      actor: `client:${credential.client_id}`,
      request_id: privateIssued!.eventId,
      client_ip: expect.any(String),
    });
    expect(publicIssued!.data).toMatchObject({
      jti: publicToken.payload.jti,
      parent_jti: privateToken.payload.jti,
      customer_id: 'cust-42',
      segment_id: 'gold',
    });
    expect(mine[0]!.metadata).toMatchObject({
      actor: 'user:alice',
      client_ip: expect.any(String),
      request_id: expect.any(String),
    });

    // The secret is shown once and stored nowhere in clear: not in events, not in the read model.
    const dump = await service.database.pool.query(
      `SELECT (SELECT json_agg(e)::text FROM events e) || (SELECT json_agg(c)::text FROM credentials c) AS text`,
    );
    expect(dump.rows[0].text).not.toContain(credential.client_secret);
    expect(dump.rows[0].text).not.toContain(credential.client_secret!.slice(3));
  });

  it('a credential works the moment its creation returns (read model written inline)', async () => {
    for (let i = 0; i < 10; i++) {
      const credential = await createCredentialVia(service, 'space-inline', `client ${i}`);
      await expect(privateTokenVia(service, credential)).resolves.toMatch(/^ey/);
    }
  });

  it('issues 100 parallel private tokens as 100 events with 100 distinct jti', async () => {
    const credential = await createCredentialVia(service, 'space-parallel');
    const tokens = await Promise.all(
      Array.from({ length: 100 }, () => privateTokenVia(service, credential)),
    );
    const jtis = new Set(tokens.map((token) => decodeJwt(token).jti));
    expect(jtis.size).toBe(100);
    const events = (await allEvents()).filter(
      (event) =>
        event.type === 'private-token-issued' &&
        (event.data as { client_id: string }).client_id === credential.client_id,
    );
    expect(events).toHaveLength(100);
    expect(new Set(events.map((event) => event.streamId.slice('token-'.length)))).toEqual(jtis);
  });
});

describe('a token issuance, stored lean, read back in full', () => {
  it('the audit API gives its jti, actor, request id (the response’s X-Request-Id) and expiry', async () => {
    const spaceId = 'space-audit-full';
    const credential = await createCredentialVia(service, spaceId);
    const response = await service.post('/v1/credential/token', {
      ...credential,
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id');
    const claims = decodeJwt(((await response.json()) as { access_token: string }).access_token);
    const audit = await fetch(
      `${service.baseUrl}/v1/audit/events?client_id=${credential.client_id}&event_type=private-token-issued`,
      {
        headers: {
          authorization: `Bearer ${await service.loginToken([spaceId])}`,
          'x-service-space-id': spaceId,
        },
      },
    );
    expect(audit.status).toBe(200);
    const { items } = (await audit.json()) as { items: Record<string, unknown>[] };
    expect(items).toEqual([
      expect.objectContaining({
        client_id: credential.client_id,
        jti: claims.jti,
        actor: `client:${credential.client_id}`,
        request_id: requestId,
        expires_at: new Date(claims.exp! * 1000).toISOString(),
      }),
    ]);
    // What the log holds: none of those four as text in the row.
    const { rows } = await service.database.pool.query<{ row: string }>(
      `SELECT data::text || metadata::text AS row FROM events WHERE stream_id = $1`,
      [`token-${claims.jti}`],
    );
    expect(rows).toHaveLength(1);
    for (const derived of [claims.jti!, `client:${credential.client_id}`, requestId!]) {
      expect(rows[0]!.row).not.toContain(derived);
    }
    expect(rows[0]!.row).toContain(`"expires_at": ${claims.exp}`);
  });
});

describe('the token endpoint with a standard OAuth client library (form-encoded)', () => {
  async function clientConfig(auth: 'basic' | 'post') {
    const credential = await createCredentialVia(service, 'space-oauth');
    const config = new oauth.Configuration(
      { issuer: ISSUER, token_endpoint: `${service.baseUrl}/v1/credential/token` },
      credential.client_id,
      undefined,
      auth === 'basic'
        ? oauth.ClientSecretBasic(credential.client_secret)
        : oauth.ClientSecretPost(credential.client_secret),
    );
    oauth.allowInsecureRequests(config);
    return { config, credential };
  }

  it.each(['basic', 'post'] as const)(
    'gets a verifiable token with client_secret_%s',
    async (auth) => {
      const { config, credential } = await clientConfig(auth);
      const tokens = await oauth.clientCredentialsGrant(config, { audience: AUDIENCE });
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.expires_in).toBe(3600);
      const jwks = createRemoteJWKSet(new URL(`${service.baseUrl}/.well-known/jwks.json`));
      const { payload } = await jwtVerify(tokens.access_token, jwks, {
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      expect(payload.client_id).toBe(credential.client_id);
    },
  );

  it('surfaces invalid_client to the library for a wrong secret', async () => {
    const { credential } = await clientConfig('basic');
    const wrong = new oauth.Configuration(
      { issuer: ISSUER, token_endpoint: `${service.baseUrl}/v1/credential/token` },
      credential.client_id,
      undefined,
      oauth.ClientSecretBasic('cs_wrong'),
    );
    oauth.allowInsecureRequests(wrong);
    const failure = await oauth.clientCredentialsGrant(wrong, { audience: AUDIENCE }).then(
      () => undefined,
      (error: unknown) => error as { status: number; response: Response },
    );
    // RFC 6749 §5.2: a client that authenticated with Basic gets a Basic challenge with the 401.
    expect(failure?.status).toBe(401);
    expect(failure?.response.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(await failure?.response.json()).toMatchObject({ error: 'invalid_client' });
  });
});
