import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { signAccessToken } from '../../../src/crypto/access-tokens.js';
import { retireSigningKey } from '../../../src/commands/signing-key/change-keys.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startSecondInstance,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

const SPACE = 'space-life';
const OTHER = 'space-other';
let service: TestService;
let login: string;
let otherLogin: string;

beforeAll(async () => {
  service = await startTestService({ SIGNING_KEY_REFRESH_MS: '200' });
  login = await service.loginToken([SPACE], 'alice');
  otherLogin = await service.loginToken([OTHER], 'mallory');
});

type Credential = { client_id: string; client_secret: string };
const asUser = (token = login, space = SPACE) => ({
  authorization: `Bearer ${token}`,
  'x-service-space-id': space,
});
const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${service.baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const grant = (credential: Credential, base = service) =>
  base.post('/v1/credential/token', {
    ...credential,
    audience: AUDIENCE,
    grant_type: 'client_credentials',
  });
const publicTokenFor = async (privateToken: string) => {
  const response = await service.post(
    '/v1/issue',
    { customer_id: 'c-1', segment_id: 's-1' },
    { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE },
  );
  return { status: response.status, token: ((await response.json()) as { token?: string }).token };
};
const introspect = async (caller: Credential, token: string) => {
  const response = await service.post('/v1/introspect', { ...caller, token });
  expect(response.headers.get('cache-control')).toBe('no-store');
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const eventsOfType = async (type: string, clientId?: string) =>
  (
    await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE event_type = $1
         AND ($2::text IS NULL OR data->>'client_id' = $2)`,
      [type, clientId ?? null],
    )
  ).rows[0]!.n;
const project = async () => {
  for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 1000);
};

describe('listing and reading credentials', () => {
  it('pages a space’s credentials without gaps, filters by status, and never shows a secret', async () => {
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push(await createCredentialVia(service, SPACE, `c${i}`));
    await createCredentialVia(service, OTHER);
    await call('DELETE', `/v1/credential/${mine[4]!.client_id}`, asUser());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await call(
        'GET',
        `/v1/credentials?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        asUser(),
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as {
        items: Array<Record<string, unknown>>;
        next_cursor: string | null;
      };
      expect(page.items.length).toBeLessThanOrEqual(2);
      for (const item of page.items) {
        expect(Object.keys(item)).not.toContain('client_secret');
        expect(JSON.stringify(item)).not.toMatch(/secret_hash|cs_/);
        expect(item.space_id).toBe(SPACE);
        seen.push(item.client_id as string);
      }
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const credential of mine) expect(seen).toContain(credential.client_id);

    const revoked = (await (
      await call('GET', '/v1/credentials?status=revoked', asUser())
    ).json()) as {
      items: Array<{ client_id: string; status: string }>;
    };
    expect(revoked.items.map((item) => item.client_id)).toEqual([mine[4]!.client_id]);
    expect((await call('GET', '/v1/credentials?cursor=bm9wZQ', asUser())).status).toBe(400);
  });

  it('reads one credential with last_used_at from the projector, and 404s it from another space', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const read = async () =>
      (await (
        await call('GET', `/v1/credential/${credential.client_id}`, asUser())
      ).json()) as Record<string, unknown>;
    expect(await read()).toMatchObject({
      client_id: credential.client_id,
      name: 'web shop',
      description: 'test client',
      space_id: SPACE,
      status: 'active',
      last_used_at: null,
      created_at: expect.any(String),
      last_updated: expect.any(String),
    });
    await privateTokenVia(service, credential);
    await project();
    expect((await read()).last_used_at).toEqual(expect.any(String));
    const foreign = await call(
      'GET',
      `/v1/credential/${credential.client_id}`,
      asUser(otherLogin, OTHER),
    );
    expect(foreign.status).toBe(404);
  });
});

describe('rotating a secret', () => {
  it('the new secret works at once, the old one until the overlap ends, then invalid_client', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const response = await call('POST', `/v1/credential/${credential.client_id}/secret`, asUser(), {
      overlap_seconds: 2,
    });
    expect(response.status).toBe(200);
    const rotated = (await response.json()) as {
      client_id: string;
      client_secret: string;
      previous_secret_expires_at: string;
    };
    expect(rotated.client_id).toBe(credential.client_id);
    expect(rotated.client_secret).not.toBe(credential.client_secret);
    expect((await grant({ ...credential, client_secret: rotated.client_secret })).status).toBe(200);
    expect((await grant(credential)).status).toBe(200);
    const read = (await (
      await call('GET', `/v1/credential/${credential.client_id}`, asUser())
    ).json()) as {
      previous_secret_expires_at?: string;
    };
    expect(read.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);
    await waitUntil(
      () => grant(credential).then((r) => r.status),
      (status) => status === 401,
      { timeoutMs: 5000, intervalMs: 200 },
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(rotated.previous_secret_expires_at));
    expect((await grant({ ...credential, client_secret: rotated.client_secret })).status).toBe(200);
  });

  it('rotating during an overlap ends the oldest secret at once: never more than two valid', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const rotate = async () =>
      (
        (await (
          await call('POST', `/v1/credential/${credential.client_id}/secret`, asUser())
        ).json()) as { client_secret: string }
      ).client_secret;
    const second = await rotate();
    const third = await rotate();
    expect((await grant(credential)).status).toBe(401);
    expect((await grant({ ...credential, client_secret: second })).status).toBe(200);
    expect((await grant({ ...credential, client_secret: third })).status).toBe(200);
    expect(await eventsOfType('credential-secret-rotated', credential.client_id)).toBe(2);
  });

  it('refuses an overlap out of range and another space’s credential, recording nothing', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const path = `/v1/credential/${credential.client_id}/secret`;
    expect((await call('POST', path, asUser(), { overlap_seconds: 86_401 })).status).toBe(400);
    expect((await call('POST', path, asUser(), { overlap_seconds: -1 })).status).toBe(400);
    expect((await call('POST', path, asUser(otherLogin, OTHER))).status).toBe(404);
    expect(await eventsOfType('credential-secret-rotated', credential.client_id)).toBe(0);
  });
});

describe('revoking a credential', () => {
  it('stops its grants and its tokens, inactivates derived public tokens, and is recorded once', async () => {
    const victim = await createCredentialVia(service, SPACE);
    const auditor = await createCredentialVia(service, SPACE);
    const privateToken = await privateTokenVia(service, victim);
    const { token: publicToken } = await publicTokenFor(privateToken);
    expect((await introspect(auditor, publicToken!)).body.active).toBe(true);

    const response = await call('DELETE', `/v1/credential/${victim.client_id}`, asUser(), {
      reason: 'leaked in a repository',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ client_id: victim.client_id, status: 'revoked' });
    expect((await grant(victim)).status).toBe(401);
    expect((await publicTokenFor(privateToken)).status).toBe(401);
    expect((await introspect(auditor, privateToken)).body).toEqual({ active: false });
    expect((await introspect(auditor, publicToken!)).body).toEqual({ active: false });

    expect((await call('DELETE', `/v1/credential/${victim.client_id}`, asUser())).status).toBe(200);
    expect(await eventsOfType('credential-revoked', victim.client_id)).toBe(1);
    const { rows } = await service.database.pool.query(
      `SELECT data, metadata FROM events WHERE event_type = 'credential-revoked' AND data->>'client_id' = $1`,
      [victim.client_id],
    );
    expect(rows[0]).toMatchObject({
      data: { reason: 'leaked in a repository', revoked_by: 'user:alice' },
      metadata: {
        actor: 'user:alice',
        request_id: expect.any(String),
        client_ip: expect.any(String),
      },
    });
  });

  it('takes effect on a second API instance within the credential cache time (1 s)', async () => {
    const second = await startSecondInstance(service);
    const credential = await createCredentialVia(service, SPACE);
    expect((await grant(credential, second)).status).toBe(200); // now cached on the second
    await call('DELETE', `/v1/credential/${credential.client_id}`, asUser());
    const revokedAt = Date.now();
    await waitUntil(
      () => grant(credential, second).then((r) => r.status),
      (status) => status === 401,
      { timeoutMs: 6000, intervalMs: 50 },
    );
    // The bound (about a second) plus a busy machine's margin.
    expect(Date.now() - revokedAt).toBeLessThan(3000);
  });

  it('refuses another space’s dashboard user with 404 and records nothing', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const response = await call(
      'DELETE',
      `/v1/credential/${credential.client_id}`,
      asUser(otherLogin, OTHER),
    );
    expect(response.status).toBe(404);
    expect(await eventsOfType('credential-revoked', credential.client_id)).toBe(0);
    expect((await grant(credential)).status).toBe(200);
  });
});

describe('introspection (RFC 7662)', () => {
  it('describes active tokens of its space and says only active:false for anything else', async () => {
    const owner = await createCredentialVia(service, SPACE);
    const caller = await createCredentialVia(service, SPACE);
    const stranger = await createCredentialVia(service, OTHER);
    const privateToken = await privateTokenVia(service, owner);
    const { token: publicToken } = await publicTokenFor(privateToken);
    const claims = decodeJwt(privateToken);

    expect((await introspect(caller, privateToken)).body).toEqual({
      active: true,
      token_type: 'Bearer',
      client_id: owner.client_id,
      sub: owner.client_id,
      aud: AUDIENCE,
      iss: 'http://token-authority.test',
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      space_id: SPACE,
      token_kind: 'private',
    });
    expect((await introspect(caller, publicToken!)).body).toMatchObject({
      active: true,
      token_kind: 'public',
      customer_id: 'c-1',
      segment_id: 's-1',
      parent_jti: claims.jti,
    });

    const key = service.api.commands.keys.current();
    const expired = signAccessToken(key, {
      ...(claims as never as Record<string, never>),
      iat: Math.floor(Date.now() / 1000) - 7200,
      exp: Math.floor(Date.now() / 1000) - 3600,
    } as never);
    const forged = `${privateToken.slice(0, -4)}AAAA`;
    for (const token of [expired, forged, 'not-a-token', await service.loginToken([SPACE])]) {
      expect((await introspect(caller, token)).body).toEqual({ active: false });
    }
    // Another space's client learns nothing about this space's tokens.
    expect((await introspect(stranger, privateToken)).body).toEqual({ active: false });
  });

  it('authenticates the caller by HTTP Basic or body, and refuses a wrong secret with invalid_client', async () => {
    const caller = await createCredentialVia(service, SPACE);
    const token = await privateTokenVia(service, caller);
    const basic = await fetch(`${service.baseUrl}/v1/introspect`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${caller.client_id}:${caller.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
    });
    expect(basic.status).toBe(200);
    expect(await basic.json()).toMatchObject({ active: true });
    const wrong = await introspect({ ...caller, client_secret: 'cs_wrong' }, token);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'invalid_client' });
  });
});

describe('token revocation (RFC 7009)', () => {
  it('revokes a private token and the public tokens derived from it; 200 whatever the token', async () => {
    const owner = await createCredentialVia(service, SPACE);
    const other = await createCredentialVia(service, SPACE);
    const privateToken = await privateTokenVia(service, owner);
    const { token: publicToken } = await publicTokenFor(privateToken);
    const othersToken = await privateTokenVia(service, other);

    // Another client's token: 200, nothing revoked, nothing recorded.
    const before = await eventsOfType('token-revoked');
    expect((await service.post('/v1/revoke', { ...owner, token: othersToken })).status).toBe(200);
    expect((await service.post('/v1/revoke', { ...owner, token: 'garbage' })).status).toBe(200);
    expect(await eventsOfType('token-revoked')).toBe(before);
    expect((await introspect(owner, othersToken)).body.active).toBe(true);

    const response = await service.post('/v1/revoke', { ...owner, token: privateToken });
    expect(response.status).toBe(200);
    expect((await publicTokenFor(privateToken)).status).toBe(401);
    expect((await introspect(other, privateToken)).body).toEqual({ active: false });
    expect((await introspect(other, publicToken!)).body).toEqual({ active: false });
    // Again: still 200, recorded once.
    expect((await service.post('/v1/revoke', { ...owner, token: privateToken })).status).toBe(200);
    expect(await eventsOfType('token-revoked', owner.client_id)).toBe(1);
    // The credential itself still works: only that token was withdrawn.
    expect((await grant(owner)).status).toBe(200);
  });

  it('reaches a second API instance within the cache time', async () => {
    const second = await startSecondInstance(service);
    const owner = await createCredentialVia(service, SPACE);
    const privateToken = await privateTokenVia(service, owner);
    const issueOnSecond = () =>
      second
        .post(
          '/v1/issue',
          { customer_id: 'c', segment_id: 's' },
          { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE },
        )
        .then((r) => r.status);
    expect(await issueOnSecond()).toBe(200);
    await service.post('/v1/revoke', { ...owner, token: privateToken });
    const revokedAt = Date.now();
    await waitUntil(issueOnSecond, (status) => status === 401, { timeoutMs: 6000, intervalMs: 50 });
    expect(Date.now() - revokedAt).toBeLessThan(3000);
  });
});

describe('the revocation list for offline verifiers', () => {
  it('lists revoked clients and tokens (derived public tokens included) of one space, cacheably', async () => {
    const client = await createCredentialVia(service, SPACE);
    const tokenOwner = await createCredentialVia(service, SPACE);
    const privateToken = await privateTokenVia(service, tokenOwner);
    const { token: publicToken } = await publicTokenFor(privateToken);
    await call('DELETE', `/v1/credential/${client.client_id}`, asUser());
    await service.post('/v1/revoke', { ...tokenOwner, token: privateToken });
    await project();
    const response = await fetch(`${service.baseUrl}/v1/revocations?space_id=${SPACE}`);
    expect(response.status).toBe(200);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1]);
    expect(response.headers.get('cache-control')).toContain('public');
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(30);
    const list = (await response.json()) as {
      space_id: string;
      clients: Array<{ client_id: string; revoked_at: string }>;
      tokens: Array<{ jti: string; exp: number }>;
    };
    expect(list.space_id).toBe(SPACE);
    expect(list.clients.map((c) => c.client_id)).toContain(client.client_id);
    const jtis = list.tokens.map((t) => t.jti);
    expect(jtis).toContain(decodeJwt(privateToken).jti);
    expect(jtis).toContain(decodeJwt(publicToken!).jti);
    const other = (await (
      await fetch(`${service.baseUrl}/v1/revocations?space_id=${OTHER}`)
    ).json()) as {
      clients: unknown[];
      tokens: Array<{ jti: string }>;
    };
    expect(other.tokens.map((t) => t.jti)).not.toContain(decodeJwt(privateToken).jti);
    expect((await fetch(`${service.baseUrl}/v1/revocations`)).status).toBe(400);
  });
});

describe('withdrawing a signing key', () => {
  it('drops it from the JWKS, rejects its tokens, and signs with a new key at once; all recorded', async () => {
    const owner = await createCredentialVia(service, SPACE);
    const caller = await createCredentialVia(service, SPACE);
    const before = await privateTokenVia(service, owner);
    const kid = decodeProtectedHeader(before).kid!;
    const result = await retireSigningKey(
      service.api.commands.events,
      kid,
      { actor: 'operator:test', origin: 'cli@test', requestId: null },
      await loadKeyEncryptionKey(undefined, service.dataDir),
    );
    expect(result.retired).toBe(true);
    expect(result.replacement).toEqual(expect.any(String));
    const jwksKids = async () =>
      (
        (await (await fetch(`${service.baseUrl}/.well-known/jwks.json`)).json()) as {
          keys: Array<{ kid: string }>;
        }
      ).keys.map((key) => key.kid);
    await waitUntil(jwksKids, (kids) => !kids.includes(kid), { timeoutMs: 3000 });
    expect(await jwksKids()).toContain(result.replacement);
    expect((await publicTokenFor(before)).status).toBe(401);
    expect((await introspect(caller, before)).body).toEqual({ active: false });
    const after = await privateTokenVia(service, owner);
    expect(decodeProtectedHeader(after).kid).toBe(result.replacement);
    const { rows } = await service.database.pool.query<{ event_type: string; actor: string }>(
      `SELECT event_type, metadata->>'actor' AS actor FROM events
       WHERE event_type IN ('signing-key-retired', 'signing-key-generated') AND data->>'kid' = ANY($1)`,
      [[kid, result.replacement]],
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { event_type: 'signing-key-retired', actor: 'operator:test' },
        { event_type: 'signing-key-generated', actor: 'operator:test' },
      ]),
    );
  });
});

describe('the audit trail', () => {
  it('shows every lifecycle change with its actor', async () => {
    await project();
    const response = await call('GET', '/v1/audit/events?limit=1000', asUser());
    const { items } = (await response.json()) as {
      items: Array<{ event_type: string; actor: string | null }>;
    };
    const types = new Set(items.map((item) => item.event_type));
    for (const type of ['credential-secret-rotated', 'credential-revoked', 'token-revoked']) {
      expect(types).toContain(type);
    }
    expect(
      items
        .filter((i) => i.event_type === 'credential-revoked')
        .every((i) => i.actor === 'user:alice'),
    ).toBe(true);
  });
});
