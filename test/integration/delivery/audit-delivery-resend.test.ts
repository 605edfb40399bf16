import { randomBytes, randomUUID } from 'node:crypto';
import { TEST_DELIVERER_TIMINGS } from '../../support/delivery/deliverer-timings.js';
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keyEncryptionKey } from '../../../src/crypto/key-encryption.js';
import { startDeliverer, type RunningDeliverer } from '../../../src/delivery/deliverer.js';
import { delivererEvents } from '../../../src/commands/sink/deliverer-events.js';
import { newWebhookSecret } from '../../../packages/outbound/src/standard-webhooks.js';
import { sealSinkSecret, writeSink } from '../../../src/delivery/sinks.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { exampleEvents } from '../../support/example-events.js';
import { startWebhookReceiver } from '../../../packages/outbound/test/webhook-receiver.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 51: a batch sent again after a deliverer crash is the same range under the same
 * webhook-id (item 13); a receiver that answers the empty probe but refuses batches keeps its
 * sink paused, without an event per probe (item 12).
 */
let database: TestDatabase;
const kek = keyEncryptionKey(randomBytes(32));

beforeAll(async () => {
  database = await createTestDatabase(6);
});

const options = (maxAttempts: number) => ({
  db: database.db,
  events: delivererEvents(database.db),
  url: database.url,
  kek,
  issuer: 'https://auth.example.test',
  rules: { production: false, allowHttpHosts: [], ownPorts: [] },
  operatorSinks: [],
  ...TEST_DELIVERER_TIMINGS,
  maxAttempts,
  logger: pino({ level: process.env.DELIVERY_LOG ?? 'silent' }),
});

const append = (spaceId: string, count: number) =>
  (async () => {
    for (let i = 0; i < count; i++) {
      await appendToStream(database.db, {
        spaceId,
        stream: newStream(`stream-${randomUUID()}`),
        events: [
          {
            eventId: randomUUID(),
            type: 'audit-log-read',
            data: exampleEvents('ci_resend')['audit-log-read'],
            metadata: { actor: 'test' },
          },
        ],
      });
    }
  })();

const sinkRow = (sinkId: string, spaceId: string, url: string, secret: string) =>
  writeSink(database.db, {
    sinkId,
    spaceId,
    name: sinkId,
    target: { kind: 'webhook', url },
    sealedSecret: sealSinkSecret(kek, sinkId, secret),
  });

const sinkEvents = (sinkId: string) =>
  database.db
    .selectFrom('events')
    .select(['event_type'])
    .where('event_type', 'in', ['sink-paused', 'sink-resumed'])
    .where(sql<boolean>`data->>'sink_id' = ${sinkId}`)
    .execute()
    .then((rows) => rows.map((row) => row.event_type));

describe('a batch sent again', () => {
  let deliverer: RunningDeliverer | undefined;
  afterEach(async () => {
    await deliverer?.stop();
    deliverer = undefined;
  });

  it('after a deliverer crash carries the same range under the same webhook-id (item 13)', async () => {
    const secret = newWebhookSecret();
    let refusing = true;
    const sent: { id: string; events: string[] }[] = [];
    const receiver = await startWebhookReceiver(secret, (delivery) => {
      sent.push({ id: delivery.id, events: delivery.events.map((e) => e.id) });
      return refusing ? 503 : 204;
    });
    await sinkRow('snk_resend', 'space-resend', receiver.url, secret);
    await append('space-resend', 3);
    deliverer = startDeliverer(options(1000));
    await waitUntil(
      () => sent.length,
      (n) => n >= 1,
      { timeoutMs: 20_000 },
    );
    // The deliverer goes away before any acknowledgement; more events settle meanwhile.
    await deliverer.stop();
    const before = sent.map((s) => s.id);
    await append('space-resend', 2);
    refusing = false;
    deliverer = startDeliverer(options(1000));
    await waitUntil(receiver.events, (got) => got.length === 5, { timeoutMs: 20_000 });
    const [first, ...rest] = receiver.deliveries;
    expect(first!.id).toBe(before[0]);
    expect(first!.events.map((e) => e.id)).toEqual(sent[0]!.events);
    expect(first!.events).toHaveLength(3);
    // A receiver de-duplicating by webhook-id keeps every event once.
    const kept = new Map(receiver.deliveries.map((d) => [d.id, d.events]));
    expect([...kept.values()].flat()).toHaveLength(5);
    expect(rest.every((d) => d.id !== first!.id)).toBe(true);
    // Acknowledged: the range is no longer held (written once the receiver's answer is back, so
    // a moment after the receiver counted the events).
    const pending = () =>
      database.db
        .selectFrom('audit_sink_cursors')
        .select('pending_transaction_id')
        .where('sink_id', '=', 'snk_resend')
        .executeTakeFirstOrThrow()
        .then((cursor) => cursor.pending_transaction_id);
    expect(await waitUntil(pending, (held) => held === null, { timeoutMs: 10_000 })).toBeNull();
    await receiver.close();
  }, 40_000);
});

describe('a receiver that answers the empty probe but refuses batches', () => {
  let deliverer: RunningDeliverer | undefined;
  afterEach(async () => {
    await deliverer?.stop();
    deliverer = undefined;
  });

  it('keeps its sink paused without an event per probe, and resumes it once a batch is taken (item 12)', async () => {
    const secret = newWebhookSecret();
    let takesBatches = false;
    let probes = 0;
    const receiver = await startWebhookReceiver(secret, (delivery) => {
      probes += 1;
      return delivery.events.length === 0 || takesBatches ? 204 : 500;
    });
    await sinkRow('snk_flap', 'space-flap', receiver.url, secret);
    await append('space-flap', 4);
    deliverer = startDeliverer(options(2));
    await waitUntil(
      () => sinkEvents('snk_flap'),
      (types) => types.includes('sink-paused'),
      { timeoutMs: 20_000 },
    );
    const probesAtPause = probes;
    // Twenty-odd probe intervals.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(probes - probesAtPause).toBeGreaterThan(5);
    expect(await sinkEvents('snk_flap')).toEqual(['sink-paused']);
    takesBatches = true;
    const types = await waitUntil(
      () => sinkEvents('snk_flap'),
      (got) => got.includes('sink-resumed'),
      { timeoutMs: 20_000 },
    );
    expect(types).toEqual(['sink-paused', 'sink-resumed']);
    // The four reads and its own pause, delivered before it was called resumed.
    await waitUntil(receiver.events, (got) => got.length >= 5, { timeoutMs: 20_000 });
    await receiver.close();
  }, 40_000);
});
