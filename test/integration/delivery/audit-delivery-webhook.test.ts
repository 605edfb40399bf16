import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyEncryptionKey } from '../../../src/crypto/key-encryption.js';
import { startDeliverer, type RunningDeliverer } from '../../../src/delivery/deliverer.js';
import { delivererEvents } from '../../../src/commands/sink/deliverer-events.js';
import { newWebhookSecret } from '../../../packages/outbound/src/standard-webhooks.js';
import { sinkStatuses } from '../../../src/delivery/status.js';
import { nextBatch } from '../../../src/delivery/batch-reader.js';
import { sealSinkSecret, writeSink } from '../../../src/delivery/sinks.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { exampleEvents } from '../../support/example-events.js';
import { startWebhookReceiver } from '../../../packages/outbound/test/webhook-receiver.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 43: the webhook sink. Real deliveries to a receiver that verifies each with the
 * `standardwebhooks` package; a failing sink retried with the same delivery id, then paused,
 * while the other sink keeps up.
 */
let database: TestDatabase;
const kek = keyEncryptionKey(randomBytes(32));
const issuer = 'https://auth.example.test';

beforeAll(async () => {
  database = await createTestDatabase(6);
});

const options = (
  overrides: { maxAttempts?: number; lingerMs?: number; reloadMs?: number } = {},
) => ({
  db: database.db,
  events: delivererEvents(database.db),
  url: database.url,
  kek,
  issuer,
  rules: { production: false, allowHttpHosts: [], ownPorts: [] },
  operatorSinks: [],
  batchSize: 50,
  maxAttempts: overrides.maxAttempts ?? 100,
  timeoutMs: 2000,
  backoff: { baseMs: 20, maxMs: 100 },
  probeMs: 100,
  pollMs: 50,
  lingerMs: overrides.lingerMs ?? 0,
  reloadMs: overrides.reloadMs ?? 100,
  leaseMs: 5000,
  standbyRetryMs: 200,
  logger: pino({ level: process.env.DELIVERY_LOG ?? 'silent' }),
});

const append = (spaceId: string, type: string, data: unknown) =>
  appendToStream(database.db, {
    spaceId,
    stream: newStream(`stream-${randomUUID()}`),
    events: [{ eventId: randomUUID(), type, data, metadata: { actor: 'test' } }],
  });

const sinkRow = async (sinkId: string, spaceId: string, url: string, secret: string) =>
  writeSink(database.db, {
    sinkId,
    spaceId,
    name: sinkId,
    target: { kind: 'webhook', url },
    sealedSecret: sealSinkSecret(kek, sinkId, secret),
  });

describe('the webhook sink', () => {
  let deliverer: RunningDeliverer | undefined;
  afterAll(() => deliverer?.stop());

  it('delivers its space, in log order, as signed CloudEvents batches the standardwebhooks verifier accepts, redacted as exports are', async () => {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver(secret);
    const examples = exampleEvents('ci_hook');
    await sinkRow('snk_ordered', 'space-hook-a', receiver.url, secret);
    await append('space-hook-a', 'credential-created', examples['credential-created']);
    for (let i = 0; i < 120; i++) {
      await append(
        i % 3 === 0 ? 'space-hook-b' : 'space-hook-a',
        'audit-log-read',
        examples['audit-log-read'],
      );
    }
    deliverer = startDeliverer(options());
    const events = await waitUntil(receiver.events, (got) => got.length === 81, {
      timeoutMs: 20_000,
    });
    expect(receiver.refused()).toBe(0);
    expect(
      receiver.deliveries.every((d) => d.contentType === 'application/cloudevents-batch+json'),
    ).toBe(true);
    expect(new Set(events.map((e) => e.data.space_id))).toEqual(new Set(['space-hook-a']));
    const positions = events.map((e) => e.data.global_position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const created = events[0]!;
    expect(created.type).toBe('com.token-authority.credential-created');
    expect(created.source).toBe(`${issuer}/spaces/space-hook-a`);
    expect(created.data.data.secret_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(events)).not.toContain(examples['credential-created'].secret_hash);
    await receiver.close();
  }, 30_000);

  it('retries a failing sink with the same delivery id until it answers 2xx, and the cursor waited for it', async () => {
    const secret = newWebhookSecret();
    let failuresLeft = 4;
    const ids: string[] = [];
    const receiver = await startWebhookReceiver(secret, (delivery) => {
      ids.push(delivery.id);
      return failuresLeft-- > 0 ? 500 : 200;
    });
    await sinkRow('snk_retry', 'space-hook-retry', receiver.url, secret);
    const { events } = (await append(
      'space-hook-retry',
      'audit-log-read',
      exampleEvents('ci_r')['audit-log-read'],
    )) as unknown as { events: { eventId: string }[] };
    const got = await waitUntil(receiver.events, (e) => e.length === 1, { timeoutMs: 20_000 });
    expect(got[0]!.id).toBe(events[0]!.eventId);
    expect(ids.length).toBe(5);
    expect(new Set(ids).size).toBe(1);
    // The cursor moves after the acknowledgement, not with it.
    const cursor = await waitUntil(
      () =>
        database.db
          .selectFrom('audit_sink_cursors')
          .selectAll()
          .where('sink_id', '=', 'snk_retry')
          .executeTakeFirstOrThrow(),
      (row) => Number(row.delivered) === 1,
    );
    expect(Number(cursor.delivered)).toBe(1);
    expect(Number(cursor.failures)).toBe(4);
    expect(cursor.last_error).toBe('http_status_5xx');
    await receiver.close();
  }, 30_000);

  it('pauses a sink answering 500 after its bound (an event naming the deliverer) while another sink keeps delivering', async () => {
    await deliverer?.stop();
    // The sink list is read every 2 s here: the loop must not wait for it to stop retrying.
    deliverer = startDeliverer(options({ maxAttempts: 3, reloadMs: 2000 }));
    const started = Date.now();
    const secret = newWebhookSecret();
    const attempts: string[] = [];
    const dead = await startWebhookReceiver(secret, (delivery) => {
      if (!delivery.id.startsWith('probe_')) attempts.push(delivery.id);
      return 500;
    });
    const alive = await startWebhookReceiver(secret);
    await sinkRow('snk_dead', 'space-hook-pause', dead.url, secret);
    await sinkRow('snk_alive', 'space-hook-pause', alive.url, secret);
    for (let i = 0; i < 30; i++)
      await append('space-hook-pause', 'audit-log-read', exampleEvents('ci_p')['audit-log-read']);
    // The live sink gets the 30 reads and, being of the same space, the dead one's sink-paused.
    const reads = () => alive.events().filter((e) => e.type.endsWith('audit-log-read')).length;
    await waitUntil(reads, (n) => n === 30, { timeoutMs: 20_000 });
    const paused = await waitUntil(
      () =>
        database.db
          .selectFrom('events')
          .select(['data', 'metadata', 'space_id'])
          .where('event_type', '=', 'sink-paused')
          .execute(),
      (rows) => rows.length === 1,
      { timeoutMs: 20_000 },
    );
    // The class of its last error, never the receiver's words (issue 51, item 5).
    expect(paused[0]!.data).toMatchObject({
      sink_id: 'snk_dead',
      reason: 'failing',
      attempts: 3,
      last_error: 'http_status_5xx',
    });
    // Its bound, then one probe per SINK probe interval (100 ms here), which is its waiting batch
    // (issue 51, item 12): no burst of retries until the sink list shows the pause.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(attempts.length).toBeLessThanOrEqual(3 + Math.ceil((Date.now() - started) / 100) + 1);
    expect(new Set(attempts).size).toBe(1);
    expect(String((paused[0]!.metadata as { actor: string }).actor)).toMatch(/^deliverer:/);
    expect(paused[0]!.space_id).toBe('space-hook-pause');
    expect(dead.deliveries).toHaveLength(0);
    // Its status says so: paused, why, and how far behind (the live one is not).
    const statuses = await sinkStatuses(database.db, { spaceId: 'space-hook-pause' });
    expect(statuses.find((s) => s.sinkId === 'snk_dead')).toMatchObject({
      paused: true,
      pauseReason: 'failing',
      lastError: 'http_status_5xx',
      delivered: 0,
    });
    expect(statuses.find((s) => s.sinkId === 'snk_dead')!.lagEvents).toBeGreaterThanOrEqual(30);
    await waitUntil(() => alive.events().some((e) => e.type === 'com.token-authority.sink-paused'));
    await dead.close();
    await alive.close();
  }, 40_000);

  it('gathers what is appended while it lingers at the log end into one batch (SINK_LINGER_MS); a backlog is read in full batches, never at its end', async () => {
    await deliverer?.stop();
    const read = exampleEvents('ci_linger')['audit-log-read'];
    for (let i = 0; i < 120; i++) await append('space-hook-linger', 'audit-log-read', read);
    const batches: [number, boolean][] = [];
    let after = { transactionId: '0', globalPosition: 0 };
    // A transaction running anywhere in the cluster (an auto-analyze's) holds the settled end
    // back for a moment: an empty read at the end is read again, not the end of the test.
    for (let reads = 0, got = 0; got < 120 && reads < 400; reads++) {
      const batch = await nextBatch(database.db, {
        after,
        spaceId: 'space-hook-linger',
        limit: 50,
        scanLimit: 1000,
      });
      if (!batch || batch.events.length === 0) {
        if (batch) after = batch.through;
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      batches.push([batch.events.length, batch.atEnd]);
      got += batch.events.length;
      after = batch.through;
    }
    // A full batch is never at the end. A transaction running anywhere in the cluster (another test
    // file's) may end a read early, at the settled end: that batch is short and at the end.
    expect(batches.every(([n, atEnd]) => atEnd === n < 50)).toBe(true);
    expect(batches.reduce((sum, [n]) => sum + Number(n), 0)).toBe(120);
    deliverer = startDeliverer(options({ lingerMs: 5000 }));
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver(secret);
    await sinkRow('snk_linger', 'space-hook-linger', receiver.url, secret);
    await waitUntil(receiver.events, (got) => got.length === 120, { timeoutMs: 20_000 });
    const before = receiver.deliveries.length;
    // At the log's end it lingers: thirty appends spread over 0.6 s arrive together (one batch,
    // two if a transaction still running hid some of them at the first read; thirty without it).
    for (let i = 0; i < 30; i++) {
      await append('space-hook-linger', 'audit-log-read', read);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitUntil(receiver.events, (got) => got.length === 150, { timeoutMs: 20_000 });
    expect(receiver.deliveries.length - before).toBeLessThanOrEqual(2);
    await receiver.close();
  }, 60_000);
});
