import { EventSource } from 'eventsource';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';
import { mintDevLoginToken } from '../../../src/crypto/login-tokens.js';

const SPACE = 'space-stream';
let service: TestService;
let auditor: string;

beforeAll(async () => {
  service = await startTestService({ AUDIT_STREAM_HEARTBEAT_SECONDS: '1' });
  auditor = await service.loginToken([SPACE], 'carol', 'auditor');
});

interface Received {
  readonly id: string;
  readonly type: string;
  readonly data: { global_position: number; event_type: string; data: Record<string, unknown> };
}

/** A real SSE client (the `eventsource` package, WHATWG EventSource), with our headers. */
function subscribe(token: string, extraHeaders: Record<string, string> = {}) {
  const received: Received[] = [];
  const source = new EventSource(`${service.baseUrl}/v1/audit/stream`, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: {
          ...init?.headers,
          authorization: `Bearer ${token}`,
          'x-service-space-id': SPACE,
          ...extraHeaders,
        },
      }),
  });
  const types = ['credential-created', 'private-token-issued', 'audit-log-read'];
  for (const type of types) {
    source.addEventListener(type, (event) => {
      received.push({
        id: event.lastEventId,
        type: event.type,
        data: JSON.parse(event.data as string) as Received['data'],
      });
    });
  }
  return { source, received };
}

const positions = async (types: readonly string[]) =>
  (
    await service.database.pool.query<{ p: string }>(
      `SELECT global_position::text AS p FROM events
        WHERE space_id = $1 AND event_type = ANY($2::text[]) ORDER BY global_position`,
      [SPACE, types],
    )
  ).rows.map((row) => row.p);

describe('GET /v1/audit/stream', () => {
  it('sends the space’s events as they commit, each with its global position as id, secrets hashed', async () => {
    const { source, received } = subscribe(auditor);
    try {
      await waitUntil(
        () => source.readyState,
        (state) => state === EventSource.OPEN,
      );
      const credential = await createCredentialVia(service, SPACE);
      await privateTokenVia(service, credential);
      const got = await waitUntil(
        () => received.filter((event) => event.type !== 'audit-log-read'),
        (events) => events.length >= 2,
        { timeoutMs: 5000 },
      );
      expect(got.map((event) => event.type)).toEqual([
        'credential-created',
        'private-token-issued',
      ]);
      for (const event of got) expect(event.id).toBe(String(event.data.global_position));
      expect(got.map((event) => event.id)).toEqual(
        await positions(['credential-created', 'private-token-issued']),
      );
      expect(String(got[0]!.data.data.secret_hash)).toMatch(/^sha256:/);
      // The feed's own opening is in the trail (and so in the feed).
      expect(received.some((event) => event.type === 'audit-log-read')).toBe(true);
    } finally {
      source.close();
    }
  });

  it('a reconnect with Last-Event-ID resumes with no gap and no duplicate', async () => {
    const first = subscribe(auditor);
    await waitUntil(
      () => first.source.readyState,
      (state) => state === EventSource.OPEN,
    );
    const a = await createCredentialVia(service, SPACE, 'a');
    await waitUntil(
      () => first.received.filter((event) => event.type === 'credential-created'),
      (events) => events.length >= 1,
    );
    const lastSeen = first.received.filter((event) => event.type === 'credential-created').at(-1)!;
    first.source.close();

    // While nobody listens: three more events.
    await privateTokenVia(service, a);
    await privateTokenVia(service, a);
    await createCredentialVia(service, SPACE, 'b');

    const second = subscribe(auditor, { 'last-event-id': lastSeen.id });
    try {
      const resumed = await waitUntil(
        () => second.received.filter((event) => event.type !== 'audit-log-read'),
        (events) => events.length >= 3,
        { timeoutMs: 5000 },
      );
      const expected = (await positions(['credential-created', 'private-token-issued'])).filter(
        (position) => Number(position) > Number(lastSeen.id),
      );
      expect(resumed.map((event) => event.id)).toEqual(expected);
    } finally {
      second.source.close();
    }
  });

  it('heartbeats keep a quiet feed open; opening and closing it are recorded', async () => {
    const response = await fetch(`${service.baseUrl}/v1/audit/stream`, {
      headers: { authorization: `Bearer ${auditor}`, 'x-service-space-id': SPACE },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    const started = Date.now();
    while (!text.includes(': heartbeat') && Date.now() - started < 5000) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain(': heartbeat');
    await reader.cancel();
    const kinds = await waitUntil(
      async () =>
        (
          await service.database.pool.query<{ kind: string }>(
            `SELECT data->>'kind' AS kind FROM events
              WHERE space_id = $1 AND event_type = 'audit-log-read'`,
            [SPACE],
          )
        ).rows.map((row) => row.kind),
      (seen) => seen.filter((kind) => kind === 'stream').length >= 1,
      { timeoutMs: 5000 },
    );
    expect(kinds).toContain('stream-started');
    expect(kinds).toContain('stream');
  });

  it('refuses another space’s token, and a Last-Event-ID that is not this space’s', async () => {
    const other = await service.loginToken(['space-elsewhere'], 'mallory');
    const refused = await fetch(`${service.baseUrl}/v1/audit/stream`, {
      headers: { authorization: `Bearer ${other}`, 'x-service-space-id': SPACE },
    });
    expect(refused.status).toBe(403);
    const unknown = await fetch(`${service.baseUrl}/v1/audit/stream`, {
      headers: {
        authorization: `Bearer ${auditor}`,
        'x-service-space-id': SPACE,
        'last-event-id': '999999999',
      },
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Last-Event-ID');
  });
});

/** Reads a raw feed until `done` holds for what arrived (or `ms` passed); the text read. */
async function readFeed(response: Response, done: (text: string) => boolean, ms: number) {
  const reader = response.body!.getReader();
  let text = '';
  const until = Date.now() + ms;
  try {
    while (!done(text) && Date.now() < until) {
      const next = await Promise.race([
        reader.read(),
        new Promise<undefined>((resolve) => setTimeout(resolve, until - Date.now())),
      ]);
      if (!next || next.done) break;
      text += new TextDecoder().decode(next.value);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

const open = (base: string, token: string, space = SPACE) =>
  fetch(`${base}/v1/audit/stream`, {
    headers: { authorization: `Bearer ${token}`, 'x-service-space-id': space },
  });

describe('a stream ends when its authority does (issue 32)', () => {
  it('a feed opened with a short-lived login token ends at its exp, saying why; the token then opens nothing', async () => {
    const shortLived = await mintDevLoginToken({
      dataDir: service.dataDir,
      audience: service.config.LOGIN_AUDIENCE,
      spacesClaim: service.config.LOGIN_SPACES_CLAIM,
      subject: 'erin',
      spaces: [SPACE],
      ttlSeconds: 2,
      role: { claim: service.config.LOGIN_ROLE_CLAIM, value: 'auditor' },
    });
    const response = await open(service.baseUrl, shortLived);
    expect(response.status).toBe(200);
    const opened = Date.now();
    const text = await readFeed(response, (seen) => seen.includes('stream-ended'), 6000);
    expect(text).toMatch(/event: stream-ended\ndata: \{"reason":"login_token_expired"/);
    // It ended at the token's exp (whole seconds), not at the next heartbeat or poll.
    expect(Date.now() - opened).toBeLessThan(5000);
    // After it, the same token is refused a new feed.
    expect((await open(service.baseUrl, shortLived)).status).toBe(401);
  });
});

describe('stream slots (issue 32)', () => {
  it('AUDIT_STREAM_MAX=2: of 20 concurrent opens exactly 2 are served, the rest 503 with Retry-After', async () => {
    const small = await startTestService({
      AUDIT_STREAM_MAX: '2',
      AUDIT_STREAM_MAX_PER_USER: '100',
      AUDIT_STREAM_MAX_PER_SPACE: '100',
    });
    const token = await small.loginToken([SPACE], 'carol', 'auditor');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => open(small.baseUrl, token)),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(statuses.filter((status) => status === 503)).toHaveLength(18);
    const refused = responses.find((response) => response.status === 503)!;
    expect(refused.headers.get('retry-after')).toBe('5');
    await Promise.all(responses.map((response) => response.body?.cancel()));
  });

  it('per user and per space: one tenant cannot take every slot', async () => {
    const capped = await startTestService({
      AUDIT_STREAM_MAX: '100',
      AUDIT_STREAM_MAX_PER_USER: '2',
      AUDIT_STREAM_MAX_PER_SPACE: '3',
    });
    const carol = await capped.loginToken([SPACE, 'space-b'], 'carol', 'auditor');
    const dave = await capped.loginToken([SPACE], 'dave', 'auditor');
    const held: Response[] = [];
    const status = async (token: string, space?: string) => {
      const response = await open(capped.baseUrl, token, space);
      held.push(response);
      return response.status;
    };
    expect([await status(carol), await status(carol), await status(carol)]).toEqual([
      200, 200, 429,
    ]);
    expect([await status(dave), await status(dave)]).toEqual([200, 429]);
    // Another space is untouched by this one's slots, but carol still has none left.
    expect(await status(carol, 'space-b')).toBe(429);
    await Promise.all(held.map((response) => response.body?.cancel()));
  });
});
