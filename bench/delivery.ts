/**
 * `npx tsx bench/delivery.ts [--events=N] [--rate=R] [--load-seconds=S]` (issue 43's figures)
 *
 * On an embedded Postgres of its own: fills the log with N events across 8 spaces, then runs
 * `npm run deliver` (its own process, as in production) against one sink at a time — a local
 * webhook receiver that verifies every batch with `standardwebhooks`, then Debian's rsyslogd over
 * TCP (the tests' helper) — and reports delivered events per second, read from the sink's cursor.
 * Then, with the webhook sink caught up, appends R events a second for S seconds while the
 * deliverer runs and samples the sink's status (GET /v1/sinks's figures) for the lag under load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseCommandLine } from '#settings/command-line.js';
import { connect } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { newWebhookSecret } from '../packages/outbound/src/standard-webhooks.js';
import { sinkStatuses, type SinkStatus } from '../src/delivery/status.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { startRsyslog } from '../test/support/delivery/rsyslog.js';
import { startWebhookReceiver } from '../packages/outbound/test/webhook-receiver.js';
import { startBenchDatabase } from './database.js';

const { values } = parseCommandLine(
  `Usage: npx tsx bench/delivery.ts [--events=<n>] [--rate=<events/s>] [--load-seconds=<s>]
Delivered events per second to a local webhook and to rsyslogd, and the lag under a steady load.`,
  {
    events: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '1000' },
    'load-seconds': { type: 'string', default: '20' },
  },
);
const EVENTS = Number(values.events);
const RATE = Number(values.rate);
const LOAD_SECONDS = Number(values['load-seconds']);
const SPACES = 8;
const root = path.resolve(import.meta.dirname, '..');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`[delivery] ${message}\n`);
const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
};

const database = await startBenchDatabase('token-authority-delivery-');
await migrate(database.pool);
const handle = connect({
  url: database.postgres.url,
  poolSize: 3,
  applicationName: 'bench-delivery',
  idleInTransactionTimeoutMs: 60_000,
});
const secret = newWebhookSecret();
const webhook = await startWebhookReceiver(secret, () => 200);
const syslog = await startRsyslog({ tls: false });
const deliverers: ChildProcess[] = [];

/** `n` events as appends of up to 50 to new streams, round the spaces (as the kill drill does). */
async function append(n: number): Promise<void> {
  for (let done = 0; done < n;) {
    const count = Math.min(50, n - done);
    await appendToStream(handle.db, {
      spaceId: `space-bench-${done % SPACES}`,
      stream: newStream(`stream-${randomUUID()}`),
      events: Array.from({ length: count }, () => ({
        eventId: randomUUID(),
        type: 'audit-log-read',
        data: { kind: 'events', query: {}, rows_returned: 0, complete: true },
        metadata: { actor: 'bench' },
      })),
    });
    done += count;
  }
}

/** `npm run deliver` with one operator sink, as its own process with the default settings. */
function startDeliverer(sink: Record<string, unknown>): ChildProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'src/cli/deliver.ts')],
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: database.postgres.url,
        DATA_DIR: database.dataDir,
        MIGRATE_ON_START: 'false',
        SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        LOG_LEVEL: 'warn',
        AUDIT_SINKS: JSON.stringify([sink]),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  deliverers.push(child);
  return child;
}

async function stopDeliverer(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
}

async function statusOf(sinkId: string): Promise<SinkStatus | undefined> {
  return (await sinkStatuses(handle.db)).find((status) => status.sinkId === sinkId);
}

/** The count of events a sink acknowledged, straight from its cursor row (a cheap read). */
async function deliveredTo(sinkId: string): Promise<number> {
  const { rows } = await database.pool.query<{ delivered: string }>(
    'SELECT delivered FROM audit_sink_cursors WHERE sink_id = $1',
    [sinkId],
  );
  return Number(rows[0]?.delivered ?? 0);
}

/**
 * Events a second from the sink's first acknowledged batch to its cursor at the log's end (the
 * process's start-up left out): the cursor's `delivered` count, sampled every 20 ms.
 */
async function throughput(sink: Record<string, unknown> & { id: string }) {
  const child = startDeliverer(sink);
  let first: { at: number; delivered: number } | undefined;
  for (;;) {
    const delivered = await deliveredTo(`operator-${sink.id}`);
    if (delivered > 0 && !first) first = { at: performance.now(), delivered };
    if (delivered >= EVENTS) {
      const seconds = (performance.now() - first!.at) / 1000;
      await stopDeliverer(child);
      return { perSecond: (delivered - first!.delivered) / Math.max(seconds, 1e-3), seconds };
    }
    if (child.exitCode !== null) throw new Error(`the deliverer exited (${child.exitCode})`);
    await pause(20);
  }
}

try {
  progress(`appending ${EVENTS} events`);
  await append(EVENTS);
  progress('delivering them to the webhook receiver');
  const toWebhook = await throughput({
    id: 'bench-webhook',
    kind: 'webhook',
    url: webhook.url,
    secret,
  });
  progress('delivering them to rsyslogd');
  const toSyslog = await throughput({
    id: 'bench-syslog',
    kind: 'syslog',
    host: '127.0.0.1',
    port: syslog.port,
    tls: false,
  });
  // What the receivers hold, so a cursor that ran ahead of them would show here.
  const webhookGot = new Set(webhook.events().map((event) => event.id)).size;
  const syslogGot = new Set(await syslog.eventIds()).size;

  progress(`the lag while ${RATE} events/s are appended for ${LOAD_SECONDS}s (webhook sink)`);
  const child = startDeliverer({ id: 'bench-webhook', kind: 'webhook', url: webhook.url, secret });
  const samples: { events: number; seconds: number }[] = [];
  let loading = true;
  const sampler = (async () => {
    while (loading) {
      const status = await statusOf('operator-bench-webhook');
      if (status) samples.push({ events: status.lagEvents, seconds: status.lagSeconds });
      await pause(250);
    }
  })();
  // Steady: a tenth of a second's events every 100 ms, on a schedule that does not drift.
  const started = performance.now();
  for (let tick = 0; tick < LOAD_SECONDS * 10; tick++) {
    await append(Math.max(1, Math.round(RATE / 10)));
    await pause(Math.max(0, started + (tick + 1) * 100 - performance.now()));
  }
  const loadSeconds = (performance.now() - started) / 1000;
  loading = false;
  await sampler;
  const total = EVENTS + LOAD_SECONDS * 10 * Math.max(1, Math.round(RATE / 10));
  const drainStarted = performance.now();
  while (((await statusOf('operator-bench-webhook'))?.lagEvents ?? 1) > 0) await pause(100);
  const drain = (performance.now() - drainStarted) / 1000;
  await stopDeliverer(child);

  const lagEvents = samples.map((sample) => sample.events);
  const lagSeconds = samples.map((sample) => sample.seconds);
  console.log(
    [
      `Audit delivery on this machine: ${EVENTS.toLocaleString('en-US')} events in the log, one sink at a time, \`npm run deliver\` with its default settings.`,
      '',
      '| measure | webhook (local, verified by standardwebhooks) | rsyslogd (TCP, Debian) |',
      '| --- | ---: | ---: |',
      `| delivered events/s | ${Math.round(toWebhook.perSecond).toLocaleString('en-US')} | ${Math.round(toSyslog.perSecond).toLocaleString('en-US')} |`,
      `| time to deliver the log after the first batch | ${toWebhook.seconds.toFixed(1)} s | ${toSyslog.seconds.toFixed(1)} s |`,
      `| distinct events at the receiver | ${webhookGot.toLocaleString('en-US')} | ${syslogGot.toLocaleString('en-US')} |`,
      '',
      `Lag under load (webhook sink): ${RATE} events/s appended for ${loadSeconds.toFixed(1)} s (${total.toLocaleString('en-US')} events in the log at the end), sampled every 250 ms from the sink's status (${samples.length} samples):`,
      '',
      '| lag | p50 | p99 | max |',
      '| --- | ---: | ---: | ---: |',
      `| events | ${percentile(lagEvents, 0.5)} | ${percentile(lagEvents, 0.99)} | ${percentile(lagEvents, 1)} |`,
      `| seconds (whole, as the status gives them) | ${percentile(lagSeconds, 0.5)} | ${percentile(lagSeconds, 0.99)} | ${percentile(lagSeconds, 1)} |`,
      '',
      `Caught up ${drain.toFixed(1)} s after the load stopped.`,
    ].join('\n'),
  );
} finally {
  for (const child of deliverers) if (child.exitCode === null) child.kill('SIGTERM');
  await webhook.close();
  await syslog.stop();
  await handle.close();
  await database.stop();
}
