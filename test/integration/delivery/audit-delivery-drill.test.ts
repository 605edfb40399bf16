import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { newWebhookSecret } from '../../../packages/outbound/src/standard-webhooks.js';
import { startRsyslog } from '../../support/delivery/rsyslog.js';
import { startWebhookReceiver } from '../../../packages/outbound/test/webhook-receiver.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';
import { tempDir } from '../../support/after-file.js';

/**
 * Issue 43's kill drill: `npm run deliver` as its own process, SIGKILLed at random points while
 * the log grows (AUDIT_DRILL_KILLS kills, AUDIT_DRILL_EVENTS events; 10 and 20,000 in CI). Then
 * every event reaches both sinks (a webhook verified by standardwebhooks, and rsyslogd), per space
 * in log order; duplicates only across a kill (at most a batch per kill per sink); their count
 * is printed.
 */
const KILLS = Number(process.env.AUDIT_DRILL_KILLS ?? 10);
const EVENTS = Number(process.env.AUDIT_DRILL_EVENTS ?? 20_000);
const BATCH = 200;
const SPACES = 8;
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase(6);
});

/** Each space's events in log order, from the log itself. */
async function logOrder(): Promise<Map<string, string[]>> {
  const rows = await database.db
    .selectFrom('events')
    .select(['event_id', 'space_id'])
    .where('space_id', 'like', 'space-drill-%')
    .orderBy('transaction_id')
    .orderBy('global_position')
    .execute();
  const order = new Map<string, string[]>();
  for (const row of rows)
    order.set(row.space_id, [...(order.get(row.space_id) ?? []), row.event_id]);
  return order;
}

/** Per space, the events in the order first received, and how many arrived twice or more. */
function judge(received: readonly { id: string; space: string }[]) {
  const seen = new Set<string>();
  const firsts = new Map<string, string[]>();
  for (const { id, space } of received) {
    if (seen.has(id)) continue;
    seen.add(id);
    firsts.set(space, [...(firsts.get(space) ?? []), id]);
  }
  return { firsts, duplicates: received.length - seen.size };
}

describe('the deliverer killed at random points under load', () => {
  it(`loses nothing and keeps each space's order across ${KILLS} SIGKILLs and ${EVENTS} events`, async () => {
    const secret = newWebhookSecret();
    const webhook = await startWebhookReceiver(secret);
    const syslog = await startRsyslog({ tls: false });
    const dataDir = await tempDir('deliver-drill-');
    const env = {
      ...process.env,
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      MIGRATE_ON_START: 'false',
      SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      TOKEN_ISSUER: 'https://auth.example.test',
      LOG_LEVEL: 'warn',
      SINK_BATCH_SIZE: String(BATCH),
      PROJECTOR_POLL_INTERVAL_MS: '50',
      AUDIT_SINKS: JSON.stringify([
        { id: 'drill-webhook', kind: 'webhook', url: webhook.url, secret },
        { id: 'drill-syslog', kind: 'syslog', host: '127.0.0.1', port: syslog.port, tls: false },
      ]),
    };
    const start = (): ChildProcess =>
      spawn(process.execPath, ['--import', 'tsx', path.resolve('src/cli/deliver.ts')], {
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    const delivered = () => webhook.events().length;
    try {
      // The load: appends of 50 events to new streams across the spaces, until EVENTS.
      let appended = 0;
      const load = (async () => {
        while (appended < EVENTS) {
          const n = Math.min(50, EVENTS - appended);
          await appendToStream(database.db, {
            spaceId: `space-drill-${appended % SPACES}`,
            stream: newStream(`stream-${randomUUID()}`),
            events: Array.from({ length: n }, () => ({
              eventId: randomUUID(),
              type: 'audit-log-read',
              data: { kind: 'events', query: {}, rows_returned: 0, complete: true },
              metadata: { actor: 'drill' },
            })),
          });
          appended += n;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      // Each run lives until it delivered something more (so every kill lands mid-stream), then
      // a random while longer, then SIGKILL.
      for (let kill = 0; kill < KILLS; kill++) {
        const child = start();
        const before = delivered();
        await waitUntil(delivered, (n) => n > before || n >= EVENTS, { timeoutMs: 60_000 });
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 400));
        child.kill('SIGKILL');
        await new Promise((resolve) =>
          child.exitCode === null ? child.once('exit', resolve) : resolve(null),
        );
      }
      await load;
      const last = start();
      try {
        const order = await logOrder();
        const total = [...order.values()].reduce((sum, ids) => sum + ids.length, 0);
        expect(total).toBe(EVENTS);
        const spaceOf = new Map(
          [...order].flatMap(([space, ids]) => ids.map((id) => [id, space] as const)),
        );
        const fromWebhook = () =>
          webhook
            .events()
            .filter((e) => spaceOf.has(e.id))
            .map((e) => ({ id: e.id, space: e.data.space_id }));
        const fromSyslog = async () =>
          (await syslog.eventIds())
            .filter((id) => spaceOf.has(id))
            .map((id) => ({ id, space: spaceOf.get(id)! }));
        await waitUntil(
          () => new Set(fromWebhook().map((e) => e.id)).size,
          (n) => n === EVENTS,
          { timeoutMs: 120_000, intervalMs: 500 },
        );
        await waitUntil(
          async () => new Set((await fromSyslog()).map((e) => e.id)).size,
          (n) => n === EVENTS,
          { timeoutMs: 120_000, intervalMs: 500 },
        );
        const results = { webhook: judge(fromWebhook()), syslog: judge(await fromSyslog()) };
        for (const [sink, result] of Object.entries(results)) {
          for (const [space, ids] of order)
            expect(result.firsts.get(space), `${sink} ${space}`).toEqual(ids);
          // Only what was in flight when a process died comes twice: a batch per kill at most.
          expect(result.duplicates).toBeLessThanOrEqual(KILLS * BATCH);
        }
        // A receiver keeping one delivery per webhook-id keeps each event once: a range sent
        // again after a kill carries the id it had (issue 51, item 13).
        const byWebhookId = new Map(webhook.deliveries.map((d) => [d.id, d.events]));
        const kept = [...byWebhookId.values()].flat().filter((e) => spaceOf.has(e.id));
        expect(kept).toHaveLength(EVENTS);
        console.log(
          `audit delivery drill: ${KILLS} SIGKILLs, ${EVENTS} events; duplicates: webhook ${results.webhook.duplicates} (${kept.length - EVENTS} left de-duplicating by webhook-id), syslog ${results.syslog.duplicates}`,
        );
      } finally {
        last.kill('SIGTERM');
        await new Promise((resolve) =>
          last.exitCode === null ? last.once('exit', resolve) : resolve(null),
        );
      }
    } finally {
      await webhook.close();
      await syslog.stop();
    }
  }, 300_000);
});
