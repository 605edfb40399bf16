import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalDocuments } from '../../support/local-documents.js';
import { adminCall, startTestService, type TestService } from '../../support/test-service.js';

/**
 * Issue 64 item 6: every refused authorization request is an event in the space it was made to
 * (`authorization-request-refused`), at most FAILED_AUTH_EVENTS_PER_MINUTE per space and error a
 * minute, the rest counted in one summary; a space that takes no requests records nothing.
 */
const SPACE = 'space-authz-refusals';
const CONSENT_PAGE = 'https://shop.example/consent';
const CALLBACK = 'http://127.0.0.1:51235/callback';
// One fixed minute: every request of a test falls in one budget window.
const minute = Math.floor(Date.now() / 60_000) * 60_000;
let offsetMs = 1000;
let service: TestService;
let agent: string;

type Row = { space_id: string; event_type: string; data: Record<string, unknown>; actor: string };
const refusals = async (where = 'TRUE') =>
  (
    await service.database.pool.query<Row>(
      `SELECT space_id, event_type, data, metadata->>'actor' AS actor FROM events
        WHERE event_type IN ('authorization-request-refused', 'authorization-refusals-summarized')
          AND (${where}) ORDER BY global_position`,
    )
  ).rows;
const browse = (path: string, cookie?: string) =>
  fetch(new URL(path, service.baseUrl), {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
const authorize = async (overrides: Record<string, string | undefined>, space = SPACE) => {
  const parameters = {
    response_type: 'code',
    client_id: agent,
    redirect_uri: CALLBACK,
    code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    code_challenge_method: 'S256',
    scope: 'products:read',
    ...overrides,
  };
  const query = new URLSearchParams(
    Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return browse(`/spaces/${space}/authorize?${query}`);
};

beforeAll(async () => {
  service = await startTestService(
    { FAILED_AUTH_EVENTS_PER_MINUTE: '3', FAILED_AUTH_LIMIT_PER_MINUTE: '1000' },
    undefined,
    undefined,
    { clock: { now: () => minute + offsetMs } },
  );
  const docs = await startLocalDocuments();
  agent = `https://localhost:${docs.port}/agents/refused.json`;
  docs.serve('/agents/refused.json', {
    body: {
      client_id: agent,
      client_name: 'Agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  });
  expect(
    (
      await adminCall(service, SPACE, 'POST', '/v1/metadata-client-domains', {
        domain: 'localhost',
        scopes: ['products:read'],
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await adminCall(service, SPACE, 'POST', '/v1/authorization-app', {
        interaction_url: CONSENT_PAGE,
      })
    ).status,
  ).toBe(200);
});

describe('refused authorization requests leave bounded events', () => {
  it('a refusal shown to the browser: an event with the client_id as sent and why, no redirect', async () => {
    const response = await authorize({ redirect_uri: 'https://evil.example/callback' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const rows = await refusals();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      space_id: SPACE,
      event_type: 'authorization-request-refused',
      actor: 'anonymous',
      data: {
        client_id: agent,
        error: 'invalid_request',
        description: 'redirect_uri is not one the client registered',
        redirected: false,
      },
    });
  });

  it('a refusal sent to the client: recorded with its error before the redirect', async () => {
    const response = await authorize({ code_challenge_method: 'plain' });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe(
      'invalid_request',
    );
    const rows = await refusals(`data->>'redirected' = 'true'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data).toMatchObject({ client_id: agent, error: 'invalid_request' });
    expect(String(rows[0]!.data.description)).toContain('S256');
  });

  it('the way back refused (no cookie of the request): recorded with the request id', async () => {
    const requestId = `ar_${'A'.repeat(22)}`;
    const response = await browse(
      `/spaces/${SPACE}/authorize/resume?authorization_request=${requestId}&resume=${'b'.repeat(43)}`,
    );
    expect(response.status).toBe(400);
    const rows = await refusals(`data->>'request_id' = '${requestId}'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data).toMatchObject({ client_id: null, redirected: false });
  });

  it('a space that takes no authorization requests: 404, and nothing recorded in it', async () => {
    const response = await authorize({}, 'space-no-app');
    expect(response.status).toBe(404);
    const back = await browse(
      `/spaces/space-no-app/authorize/resume?authorization_request=ar_${'C'.repeat(22)}&resume=${'b'.repeat(43)}`,
    );
    expect(back.status).toBe(400);
    expect(await refusals(`space_id = 'space-no-app'`)).toEqual([]);
  });

  it('past the budget a minute, one summary counts the rest: the log grows by a bound', async () => {
    const unknown = (n: number) => `https://unknown-${n}.example/client.json`;
    for (let n = 0; n < 8; n += 1) {
      const response = await authorize({ client_id: unknown(n) });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('is not allowed in this space');
    }
    // Three invalid_request refusals were recorded this minute (tests above): none more one by one.
    expect(await refusals(`event_type = 'authorization-request-refused'`)).toHaveLength(3);
    offsetMs = 61_000;
    await service.api.commands.authorizationRefusals.flushClosedWindows();
    const [summary, ...more] = await refusals(`event_type = 'authorization-refusals-summarized'`);
    expect(more).toEqual([]);
    expect(summary).toMatchObject({
      space_id: SPACE,
      actor: 'service:authorization-refusal-budget',
      data: { reason: 'invalid_request', refused: 8, client_id_count: 9 },
    });
    // Every client_id of the window's requests, the recorded ones' too.
    expect(summary!.data.client_ids).toEqual([
      agent,
      ...Array.from({ length: 8 }, (_, n) => unknown(n)),
    ]);
  });
});

describe('hostile bytes in a refused request (stop 77 review)', () => {
  const raw = (query: string) =>
    fetch(`${service.baseUrl}/spaces/${SPACE}/authorize?${query}`, { redirect: 'manual' });

  it('a NUL in any parameter: a shown 400, the event recorded with U+FFFD in its place', async () => {
    const response = await raw(`client_id=a%00b&state=x`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('NUL');
    const rows = await refusals(`data->>'client_id' = 'a\uFFFDb'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data.description).toContain('NUL');
  });

  it('a client_id cut at 512 characters is never cut inside a character', async () => {
    const sent = `${'a'.repeat(511)}\u{1F600}`;
    const response = await raw(`client_id=${encodeURIComponent(sent)}&client_id=x`);
    expect(response.status).toBe(400);
    const rows = await refusals(`data->>'client_id' LIKE 'aaaa%'`);
    expect(rows).toHaveLength(1);
    expect(String(rows[0]!.data.client_id)).toBe(`${'a'.repeat(511)}\uFFFD`);
  });

  it('an id that is neither ours nor a URL costs no lookup and no cache entry', async () => {
    const before = service.api.commands.credentials.sizes().unknown;
    for (let n = 0; n < 20; n += 1) {
      expect((await authorize({ client_id: `${'x'.repeat(2000)}${n}` })).status).toBe(400);
    }
    expect(service.api.commands.credentials.sizes().unknown).toBe(before);
  });
});
