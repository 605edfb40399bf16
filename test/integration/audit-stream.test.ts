import { EventSource } from 'eventsource';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../support/test-service.js';
import { waitUntil } from '../support/wait.js';

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
