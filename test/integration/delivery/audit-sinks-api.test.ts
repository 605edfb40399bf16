import { randomBytes } from 'node:crypto';
import { TEST_DELIVERER_TIMINGS } from '../../support/delivery/deliverer-timings.js';
import net, { type AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sinkAdminContext, sinkTargetRules } from '../../../src/cli/sink-admin-context.js';
import { createSink } from '../../../src/commands/sink/admin.js';
import { sinkRoutes } from '../../../src/http/routes/sinks.js';
import type { SinkTarget } from '../../../src/domain/events.js';
import { InvalidRequestError } from '../../../src/errors/errors.js';
import { startDeliverer, type RunningDeliverer } from '../../../src/delivery/deliverer.js';
import { delivererEvents } from '../../../src/commands/sink/deliverer-events.js';
import { writeSink } from '../../../src/delivery/sinks.js';
import { startWebhookReceiver } from '../../../packages/outbound/test/webhook-receiver.js';
import {
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 43: a space's admins manage its audit sinks through the API. The webhook's secret is
 * made by the API, shown once and sealed; the deliverer opens it and the receiver verifies with
 * it. Every change is an event naming who; targets that would make the service an SSRF
 * primitive are refused.
 */
const SPACE = 'space-sinks-api';
let service: TestService;
let admin: Record<string, string>;
let deliverer: RunningDeliverer | undefined;

beforeAll(async () => {
  service = await startTestService();
  admin = {
    authorization: `Bearer ${await service.loginToken([SPACE])}`,
    'x-service-space-id': SPACE,
    'content-type': 'application/json',
  };
});
afterAll(() => deliverer?.stop());

const call = async (method: string, path: string, body?: unknown, headers = admin) => {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
  };
};

/** The deliverer of these tests, started once (a second would only stand by). */
function startDelivering(): void {
  deliverer ??= startDeliverer({
    db: service.database.db,
    events: delivererEvents(service.database.db),
    url: service.database.url,
    kek: service.api.commands.kek,
    issuer: service.config.TOKEN_ISSUER,
    rules: sinkTargetRules(service.config),
    operatorSinks: [],
    ...TEST_DELIVERER_TIMINGS,
    logger: pino({ level: 'silent' }),
  });
}

const eventsOf = (type: string) =>
  service.database.db
    .selectFrom('events')
    .select(['data', 'metadata', 'space_id'])
    .where('event_type', '=', type)
    .execute();

describe('the sinks API', () => {
  it('creates a webhook sink whose secret is shown once, and the deliverer signs with it so the standardwebhooks verifier accepts', async () => {
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    const created = await call('POST', '/v1/sinks', {
      name: 'siem',
      target: { kind: 'webhook', url: receiver.url },
    });
    expect(created.status).toBe(201);
    secret = String(created.body.secret);
    expect(secret).toMatch(/^whsec_/);
    const sinkId = String(created.body.sink_id);
    expect(created.body).toMatchObject({ name: 'siem', paused: false, delivered: 0 });

    startDelivering();
    await createCredentialVia(service, SPACE);
    const got = await waitUntil(
      receiver.events,
      (events) => events.some((event) => event.type.endsWith('credential-created')),
      { timeoutMs: 20_000 },
    );
    expect(receiver.refused()).toBe(0);
    expect(got.every((event) => event.data.space_id === SPACE)).toBe(true);

    // Listed with its cursor and lag, never with its secret.
    const listed = await waitUntil(
      () => call('GET', '/v1/sinks'),
      (list) => (list.body.items as { delivered: number }[])[0]!.delivered >= 1,
      { timeoutMs: 10_000 },
    );
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((listed.body.items as unknown[])[0]).toMatchObject({ sink_id: sinkId, lag_events: 0 });
    // Nor is it in the log, anywhere.
    const log = await service.database.db.selectFrom('events').select(['data']).execute();
    expect(JSON.stringify(log)).not.toContain(secret.slice(6));
    const [recorded] = await eventsOf('sink-created');
    expect(recorded).toMatchObject({ space_id: SPACE, metadata: { actor: 'user:alice' } });
    // /metrics (the API's own listener) labels each sink by id alone, never by space.
    const metrics = await (
      await fetch(`http://127.0.0.1:${service.api.metricsPort}/metrics`)
    ).text();
    const lines = metrics.split('\n').filter((line) => line.startsWith('token_authority_sink_'));
    expect(lines).toContain(`token_authority_sink_lag_events{sink="${sinkId}"} 0`);
    expect(lines).toContain(`token_authority_sink_paused{sink="${sinkId}"} 0`);
    expect(
      lines.some((line) => line.startsWith(`token_authority_sink_failures{sink="${sinkId}"}`)),
    ).toBe(true);
    expect(
      lines.some((line) => line.startsWith(`token_authority_sink_lag_seconds{sink="${sinkId}"}`)),
    ).toBe(true);
    expect(lines.filter((line) => line.includes('space'))).toEqual([]);
    await receiver.close();
  }, 40_000);

  it('pauses and resumes a sink, rotates its secret, each an event naming who', async () => {
    const created = await call('POST', '/v1/sinks', {
      name: 'collector',
      target: { kind: 'syslog', host: 'logs.example', port: 6514, tls: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toBeUndefined();
    const sinkId = String(created.body.sink_id);
    const paused = await call('POST', `/v1/sinks/${sinkId}/pause`);
    expect(paused).toMatchObject({ status: 200, body: { paused: true, pause_reason: 'admin' } });
    const resumed = await call('POST', `/v1/sinks/${sinkId}/resume`);
    expect(resumed).toMatchObject({ status: 200, body: { paused: false, pause_reason: null } });
    const [pausedEvent] = await eventsOf('sink-paused');
    expect(pausedEvent).toMatchObject({
      data: { sink_id: sinkId, reason: 'admin' },
      metadata: { actor: 'user:alice' },
    });
    expect(await eventsOf('sink-resumed')).toHaveLength(1);

    // Becoming a webhook makes a secret; asking again makes another.
    const changed = await call('PATCH', `/v1/sinks/${sinkId}`, {
      target: { kind: 'webhook', url: 'https://siem.example/intake' },
    });
    expect(changed.status).toBe(200);
    const first = String(changed.body.secret);
    const rotated = await call('PATCH', `/v1/sinks/${sinkId}`, { rotate_secret: true });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first);
    const changes = await eventsOf('sink-changed');
    expect(
      changes.map((event) => (event.data as { secret_rotated?: boolean }).secret_rotated),
    ).toEqual([true, true]);
  });

  it('refuses link-local and metadata targets, another space, and a role that may not change', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'https://metadata.google.internal/',
    ]) {
      const refused = await call('POST', '/v1/sinks', {
        name: 'x',
        target: { kind: 'webhook', url },
      });
      expect(refused.status, url).toBe(400);
    }
    expect(
      (await call('POST', '/v1/sinks', { name: 'x', target: { kind: 'webhook', url: 'ftp://a/' } }))
        .status,
    ).toBe(400);
    // Hostile bytes (issue 51, item 10): an IPv6 literal `new URL` throws on was a 500 with a
    // stack; a syslog host took a newline.
    const hostile = [
      { kind: 'webhook', url: 'https://[v1.x]/' },
      { kind: 'syslog', host: 'logs.example\nInjected: yes', port: 6514, tls: true },
      { kind: 'syslog', host: 'logs example', port: 6514, tls: true },
    ];
    for (const target of hostile) {
      const refused = await call('POST', '/v1/sinks', { name: 'x', target });
      expect(refused.status, JSON.stringify(target)).toBe(400);
      expect(JSON.stringify(refused.body)).not.toMatch(/at .*\.ts:\d+/);
    }
    const [mine] = (await call('GET', '/v1/sinks')).body.items as { sink_id: string }[];
    const other = {
      ...admin,
      authorization: `Bearer ${await service.loginToken(['space-other'])}`,
      'x-service-space-id': 'space-other',
    };
    expect((await call('POST', `/v1/sinks/${mine!.sink_id}/pause`, undefined, other)).status).toBe(
      404,
    );
    expect((await call('GET', '/v1/sinks', undefined, other)).body).toEqual({ items: [] });
    const auditor = {
      ...admin,
      authorization: `Bearer ${await service.loginToken([SPACE], 'bob', 'auditor')}`,
    };
    expect((await call('GET', '/v1/sinks', undefined, auditor)).status).toBe(200);
    expect(
      (await call('POST', `/v1/sinks/${mine!.sink_id}/pause`, undefined, auditor)).status,
    ).toBe(403);
  });

  it("answers a tenant asking for an operator sink's id with the very 404 of an id that does not exist (issue 51, item 11)", async () => {
    await writeSink(service.database.db, {
      sinkId: 'operator-siem',
      spaceId: null,
      name: 'siem',
      target: { kind: 'syslog', host: 'logs.example', port: 6514, tls: true },
    });
    // The path (in `instance`) and the request id differ by construction; nothing else may.
    const answer = async (method: string, path: string, body?: unknown) => {
      const { status, body: problem } = await call(method, path, body);
      const { request_id: _id, instance: _instance, ...rest } = problem;
      return { status, rest };
    };
    for (const [method, action, body] of [
      ['POST', '/pause', undefined],
      ['POST', '/resume', undefined],
      ['PATCH', '', { name: 'mine now' }],
      ['DELETE', '', undefined],
    ] as const) {
      const operator = await answer(method, `/v1/sinks/operator-siem${action}`, body);
      const unknown = await answer(method, `/v1/sinks/snk_${'x'.repeat(16)}${action}`, body);
      expect(operator.status, `${method} ${action}`).toBe(404);
      expect(operator, `${method} ${action}`).toEqual(unknown);
      expect(JSON.stringify(operator)).not.toContain('operator');
    }
  });

  it('in production refuses a private target at creation unless SINK_ALLOW_TARGETS allows it (issue 51, item 5)', async () => {
    const base = sinkAdminContext(service.config, service.api.commands);
    const production = { ...base, rules: { ...base.rules, production: true } };
    const create = (ctx: typeof base, target: SinkTarget) =>
      createSink(ctx, {
        spaceId: SPACE,
        name: 'inside',
        target,
        metadata: {
          actor: 'user:alice',
          request_id: 'r',
          client_ip: '127.0.0.1',
          user_agent: null,
        },
      });
    const inside: SinkTarget[] = [
      { kind: 'webhook', url: 'https://10.0.0.5/' },
      { kind: 'syslog', host: '10.0.0.5', port: 6379, tls: false },
      { kind: 'syslog', host: '10.0.0.5', port: 6514, tls: true },
      { kind: 'webhook', url: 'https://100.64.1.1/' },
      { kind: 'webhook', url: 'https://100.100.100.200/latest/meta-data/' },
      { kind: 'webhook', url: 'https://[fd00:ec2::254]/latest/meta-data/' },
      { kind: 'webhook', url: 'https://[64:ff9b::169.254.169.254]/' },
      { kind: 'webhook', url: 'https://[2002:a9fe:a9fe::]/' },
      { kind: 'webhook', url: 'https://[::169.254.169.254]/' },
      { kind: 'syslog', host: 'logs.example', port: 514, tls: false },
    ];
    for (const target of inside) {
      await expect(create(production, target), JSON.stringify(target)).rejects.toBeInstanceOf(
        InvalidRequestError,
      );
    }
    const allowing = {
      ...production,
      rules: { ...production.rules, allowTargets: ['10.0.0.0/24'] },
    };
    await expect(
      create(allowing, { kind: 'syslog', host: '10.0.0.5', port: 514, tls: false }),
    ).resolves.toMatchObject({ sinkId: expect.stringMatching(/^snk_/) });
    await expect(
      create(allowing, { kind: 'webhook', url: 'https://100.100.100.200/' }),
    ).rejects.toBeInstanceOf(InvalidRequestError);
  });

  it('tells a space one class of error for a closed port and for an open one that is not HTTP; the detail stays out of its view (issue 51, item 5)', async () => {
    const sockets = new Set<net.Socket>();
    const talker = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.end('-ERR unknown command\r\n');
    });
    await new Promise<void>((resolve) => talker.listen(0, '127.0.0.1', resolve));
    const open = (talker.address() as AddressInfo).port;
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    try {
      const ids: string[] = [];
      for (const port of [closed, open]) {
        const created = await call('POST', '/v1/sinks', {
          name: `port-${port}`,
          target: { kind: 'webhook', url: `http://127.0.0.1:${port}/` },
        });
        expect(created.status).toBe(201);
        ids.push(String(created.body.sink_id));
      }
      startDelivering();
      const listed = await waitUntil(
        () => call('GET', '/v1/sinks'),
        (list) =>
          ids.every((id) =>
            (list.body.items as { sink_id: string; last_error: string | null }[]).some(
              (item) => item.sink_id === id && item.last_error !== null,
            ),
          ),
        { timeoutMs: 20_000 },
      );
      const errors = (listed.body.items as { sink_id: string; last_error: string }[])
        .filter((item) => ids.includes(item.sink_id))
        .map((item) => item.last_error);
      expect(errors).toEqual(['connect_failed', 'connect_failed']);
      const rows = await service.database.db
        .selectFrom('audit_sink_cursors')
        .select(['last_error'])
        .where('sink_id', 'in', ids)
        .execute();
      expect(rows.map((row) => row.last_error)).toEqual(['connect_failed', 'connect_failed']);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => talker.close(resolve));
    }
  }, 40_000);

  it('refuses credentials in a webhook URL, and keeps a ?token= out of every event, row and view while delivering to it (issue 51, item 7)', async () => {
    const userinfo = await call('POST', '/v1/sinks', {
      name: 'x',
      target: { kind: 'webhook', url: 'https://alice:hunter2@siem.example/intake' },
    });
    expect(userinfo.status).toBe(400);
    expect(String(userinfo.body.detail)).toMatch(/user name or password/);

    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    const token = `tok_${randomBytes(16).toString('hex')}`;
    const created = await call('POST', '/v1/sinks', {
      name: 'tokened',
      target: { kind: 'webhook', url: `${receiver.url}/v2?token=${token}` },
    });
    expect(created.status).toBe(201);
    secret = String(created.body.secret);
    const origin = new URL(receiver.url).origin;
    expect(created.body.target).toEqual({
      kind: 'webhook',
      url: `${origin}/`,
      path_digest: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
    });
    const sinkId = String(created.body.sink_id);
    // Renamed: the sealed path stays; the same URL again records nothing.
    expect((await call('PATCH', `/v1/sinks/${sinkId}`, { name: 'tokened 2' })).status).toBe(200);
    const same = await call('PATCH', `/v1/sinks/${sinkId}`, {
      target: { kind: 'webhook', url: `${receiver.url}/v2?token=${token}` },
    });
    expect(same.body.target).toEqual(created.body.target);

    startDelivering();
    await createCredentialVia(service, SPACE);
    await waitUntil(
      () => receiver.deliveries,
      (deliveries) => deliveries.length > 0,
      { timeoutMs: 20_000 },
    );
    expect(receiver.deliveries[0]!.path).toBe(`/intake/v2?token=${token}`);

    const log = await service.database.db.selectFrom('events').select(['data']).execute();
    expect(JSON.stringify(log)).not.toContain(token);
    const rows = await service.database.db.selectFrom('audit_sinks').select(['target']).execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    const auditor = {
      ...admin,
      authorization: `Bearer ${await service.loginToken([SPACE], 'bob', 'auditor')}`,
    };
    const views = [
      await call('GET', '/v1/sinks', undefined, auditor),
      await call('GET', '/v1/audit/events?event_type=sink-created', undefined, auditor),
      await call('GET', '/v1/audit/events?event_type=sink-changed', undefined, auditor),
    ];
    for (const view of views) {
      expect(view.status).toBe(200);
      expect(JSON.stringify(view.body)).not.toContain(token);
      expect(JSON.stringify(view.body)).not.toContain('?token');
    }
    expect(JSON.stringify(views[1]!.body)).toContain(sinkId);
    // Nor is it delivered to a sink, its own or another.
    expect(JSON.stringify(receiver.events())).not.toContain(token);
    await receiver.close();
  }, 40_000);

  it('shows the detail a row kept from before errors were classed as delivery_failed, in the list and in an admin pause (issue 51, item 5)', async () => {
    // The row stands for one written before: no deliverer may write its own error over it.
    await deliverer?.stop();
    deliverer = undefined;
    const created = await call('POST', '/v1/sinks', {
      name: 'legacy',
      target: { kind: 'syslog', host: 'logs.example', port: 6514, tls: true },
    });
    const sinkId = String(created.body.sink_id);
    const detail = 'syslog connection failed: connect ECONNREFUSED 10.0.0.5:6379';
    await service.database.db
      .updateTable('audit_sink_cursors')
      .set({ last_error: detail })
      .where('sink_id', '=', sinkId)
      .execute();
    const items = (await call('GET', '/v1/sinks')).body.items as Record<string, unknown>[];
    expect(items.find((item) => item.sink_id === sinkId)).toMatchObject({
      last_error: 'delivery_failed',
    });
    expect((await call('POST', `/v1/sinks/${sinkId}/pause`)).status).toBe(200);
    const paused = (await eventsOf('sink-paused')).filter(
      (event) => (event.data as { sink_id: string }).sink_id === sinkId,
    );
    expect(paused.map((event) => (event.data as { last_error: string }).last_error)).toEqual([
      'delivery_failed',
    ]);
  });
});

describe('bounded sinks (issue 51, item 6)', () => {
  const LIMITED = 'space-sink-limit';
  const as = async (role?: 'admin' | 'auditor') => ({
    ...admin,
    authorization: `Bearer ${await service.loginToken([LIMITED], 'alice', role)}`,
    'x-service-space-id': LIMITED,
  });
  const syslog = (n: number) => ({
    name: `siem-${n}`,
    target: { kind: 'syslog', host: `logs-${n}.example`, port: 6514, tls: true },
  });

  it('refuses a sink past SINK_MAX_PER_SPACE with a 409 that says so; a deleted one makes room', async () => {
    const headers = await as();
    const limit = service.config.SINK_MAX_PER_SPACE;
    expect(limit).toBeGreaterThan(0);
    const made: string[] = [];
    for (let n = 0; n < limit; n++) {
      const created = await call('POST', '/v1/sinks', syslog(n), headers);
      expect(created.status).toBe(201);
      made.push(String(created.body.sink_id));
    }
    const over = await call('POST', '/v1/sinks', syslog(limit), headers);
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'conflict' });
    expect(JSON.stringify(over.body)).toContain('SINK_MAX_PER_SPACE');
    expect(
      await eventsOf('sink-created').then((rows) => rows.filter((r) => r.space_id === LIMITED)),
    ).toHaveLength(limit);
    // Concurrent creates at the limit do not both get the last place.
    expect((await call('DELETE', `/v1/sinks/${made[0]}`, undefined, headers)).status).toBe(204);
    const racing = await Promise.all(
      [1, 2, 3].map((n) => call('POST', '/v1/sinks', syslog(100 + n), headers)),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect((await call('GET', '/v1/sinks', undefined, headers)).body.items).toHaveLength(limit);
  });

  it('deletes a sink: an event naming who, its secret dropped, gone from the list and from every change; a DELETE again answers the same; an auditor may not', async () => {
    const headers = await as();
    const listed = (await call('GET', '/v1/sinks', undefined, headers)).body.items as {
      sink_id: string;
    }[];
    // A webhook, so that there is a secret to drop.
    await call('DELETE', `/v1/sinks/${listed[0]!.sink_id}`, undefined, headers);
    let secret = '';
    const receiver = await startWebhookReceiver(() => secret);
    const hook = await call(
      'POST',
      '/v1/sinks',
      { name: 'hook', target: { kind: 'webhook', url: `${receiver.url}?token=t` } },
      headers,
    );
    expect(hook.status).toBe(201);
    secret = String(hook.body.secret);
    const sinkId = String(hook.body.sink_id);
    startDelivering();
    await waitUntil(receiver.events, (got) => got.length > 0, { timeoutMs: 20_000 });
    const auditor = await as('auditor');
    expect((await call('DELETE', `/v1/sinks/${sinkId}`, undefined, auditor)).status).toBe(403);
    const deleted = await call('DELETE', `/v1/sinks/${sinkId}`, undefined, headers);
    expect(deleted).toEqual({ status: 204, body: {} });
    const recorded = (await eventsOf('sink-deleted')).filter(
      (event) => (event.data as { sink_id: string }).sink_id === sinkId,
    );
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      space_id: LIMITED,
      data: { sink_id: sinkId, name: 'hook' },
      metadata: { actor: 'user:alice' },
    });
    // Nothing more is delivered to it (the deliverer reads the sink list every 100 ms here).
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = receiver.events().length;
    await createCredentialVia(service, LIMITED);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.events()).toHaveLength(before);
    await receiver.close();
    // Idempotent: the same answer, nothing recorded again.
    expect(await call('DELETE', `/v1/sinks/${sinkId}`, undefined, headers)).toEqual(deleted);
    expect(
      (await eventsOf('sink-deleted')).filter(
        (event) => (event.data as { sink_id: string }).sink_id === sinkId,
      ),
    ).toHaveLength(1);
    const row = await service.database.db
      .selectFrom('audit_sinks')
      .select(['sealed_secret', 'sealed_path', 'deleted_at'])
      .where('sink_id', '=', sinkId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sealed_secret: null, sealed_path: null });
    expect(row.deleted_at).toBeInstanceOf(Date);
    const items = (await call('GET', '/v1/sinks', undefined, headers)).body.items as {
      sink_id: string;
    }[];
    expect(items.map((item) => item.sink_id)).not.toContain(sinkId);
    for (const [method, action, body] of [
      ['POST', '/pause', undefined],
      ['POST', '/resume', undefined],
      ['PATCH', '', { name: 'back' }],
    ] as const) {
      expect((await call(method, `/v1/sinks/${sinkId}${action}`, body, headers)).status).toBe(404);
    }
    // Another space deleting it is told what any unknown id is told.
    const other = {
      ...admin,
      authorization: `Bearer ${await service.loginToken(['space-other'])}`,
      'x-service-space-id': 'space-other',
    };
    expect((await call('DELETE', `/v1/sinks/${items[0]!.sink_id}`, undefined, other)).status).toBe(
      404,
    );
  });

  it('answers a committed change with the sink read in its transaction: nothing after the commit can turn it into a failure or lose the secret', async () => {
    // Every read the routes would make after the commit fails, as a statement past its timeout.
    const unreadable = new Proxy(
      {},
      {
        get() {
          throw new Error('a read after the commit');
        },
      },
    ) as typeof service.database.db;
    const routes = sinkRoutes(sinkAdminContext(service.config, service.api.commands), unreadable);
    const run = async (method: string, path: string, body: unknown, params = {}) => {
      const found = routes.find((r) => r.method === method && r.path === path)!;
      const ctx = {
        request: { body },
        params,
        state: { requestId: 'req-after-commit' },
        ip: '127.0.0.1',
        get: () => '',
        set: () => undefined,
        status: 200,
        body: undefined as unknown,
      };
      await (found.handle as (c: unknown, who: unknown) => Promise<void>)(ctx, {
        spaceId: 'space-after-commit',
        actor: 'user:alice',
      });
      return ctx;
    };
    const created = await run('post', '/v1/sinks', {
      name: 'hook',
      target: { kind: 'webhook', url: 'http://127.0.0.1:9/intake' },
    });
    expect(created.status).toBe(201);
    const body = created.body as { sink_id: string; secret: string; name: string };
    expect(body.secret).toMatch(/^whsec_/);
    expect(body).toMatchObject({ name: 'hook', paused: false });
    const paused = await run('post', '/v1/sinks/:sink_id/pause', undefined, {
      sink_id: body.sink_id,
    });
    expect(paused.body).toMatchObject({ sink_id: body.sink_id, paused: true });
  });
});
