import type pg from 'pg';
import { ADVISORY_LOCK } from '../db/advisory-locks.js';
import type { KeyEncryptionKey } from '../crypto/key-encryption.js';
import { EVENTS_CHANNEL } from '#event-log/notify.js';
import { operatorSinkId, type OperatorSink } from './operator-sinks.js';
import { runSinkLoop, type SinkLoop, type SinkLoopOptions } from './sink-loop.js';
import { loadSinks, writeSink, type SinkDefinition } from './sinks.js';
import { withdrawnReceivers } from './receiver-standing.js';
import type { TargetRules } from '#outbound/target-rules.js';
import { transportFor, type TransportOptions } from './transports.js';
import { isPushed, isSignalStream } from '../domain/sink/targets.js';
import { nap } from '../db/nap.js';
import { leadWhileLocked } from '../db/leader-session.js';

/** Options of {@link startDeliverer}: the SINK_* settings and what the process was given. */
export interface DelivererOptions extends Omit<
  SinkLoopOptions,
  'sink' | 'transport' | 'scanLimit'
> {
  /** For the leader's own session (advisory lock, LISTEN). */
  readonly url: string;
  readonly kek: KeyEncryptionKey;
  readonly issuer: string;
  /** The sink target rules (`sinkTargetRules`), applied again at each sink connection. */
  readonly rules: TargetRules;
  readonly operatorSinks: readonly OperatorSink[];
  readonly timeoutMs: number;
  /** How often the sink list is read again (an admin's new sink, change, pause or resume). */
  readonly reloadMs: number;
  /** The leader's lease, as the projector's (`idle_session_timeout`). */
  readonly leaseMs: number;
  readonly standbyRetryMs: number;
  /** What signs signal streams' SETs (their space's own ring). */
  readonly signals?: TransportOptions['signals'];
}

/** A running deliverer. */
export interface RunningDeliverer {
  isLeader(): boolean;
  stop(): Promise<void>;
}

const SIGNAL_LINGER_MS = 200;
const SIGNAL_BATCH_SIZE = 100;

/** Delivers the audit trail to every sink: one leader, one loop per sink, after commit. */
export function startDeliverer(options: DelivererOptions): RunningDeliverer {
  const { logger, db } = options;
  let stopping = false;
  let leader = false;
  const standby = nap();
  // What of an operator's sink stays in memory, never in its row: its secret, whole URL, CA.
  const secrets = new Map(
    options.operatorSinks.map((sink) => [
      operatorSinkId(sink.id),
      sink.kind === 'webhook'
        ? { secret: sink.secret, url: sink.url }
        : sink.ca
          ? { ca: sink.ca }
          : {},
    ]),
  );

  async function lead(session: pg.Client): Promise<void> {
    let lost: Error | undefined;
    const loops = new Map<string, { loop: SinkLoop; sink: SinkDefinition; key: string }>();
    let reload: (() => void) | undefined;
    const notice = () => {
      for (const { loop } of loops.values()) loop.wake();
    };
    session.on('error', (error) => {
      lost = error;
      reload?.();
    });
    session.on('end', () => {
      lost ??= new Error('deliverer session ended');
      reload?.();
    });
    session.on('notification', notice);
    await session.query(`LISTEN ${EVENTS_CHANNEL}`);
    await session.query(`SET idle_session_timeout = ${Math.round(options.leaseMs)}`).catch(() => {
      logger.warn('idle_session_timeout unknown (Postgres < 14): the deliverer holds no lease');
    });
    const heartbeat = setInterval(() => {
      session.query('SELECT 1').catch((error: unknown) => {
        lost ??= error as Error;
        reload?.();
      });
    }, options.leaseMs / 3);
    // The operator's sinks are settings: their rows (and cursors) are made here, kept after.
    for (const sink of options.operatorSinks) {
      const target =
        sink.kind === 'webhook'
          ? { kind: 'webhook' as const, url: `${new URL(sink.url).origin}/` }
          : { kind: 'syslog' as const, host: sink.host, port: sink.port, tls: sink.tls };
      await writeSink(db, {
        sinkId: operatorSinkId(sink.id),
        spaceId: null,
        name: sink.id,
        target,
      });
    }
    try {
      while (!stopping && !lost) {
        const current = await loadSinks(db, options.kek);
        const withdrawn = await withdrawnReceivers(db, current);
        const seen = new Set<string>();
        for (const loaded of current) {
          // A polled stream is read by its receiver through the API: no loop of ours; nor has
          // a stream whose receiver was revoked or lost the scope.
          if (!isPushed(loaded.target) || withdrawn.has(loaded.sinkId)) continue;
          const sink = { ...loaded, ...secrets.get(loaded.sinkId) };
          seen.add(sink.sinkId);
          // A new target (or secret) is a new transport; a pause or resume is only news.
          const key = JSON.stringify([
            sink.target,
            sink.url ?? null,
            sink.secret ?? null,
            sink.ca ?? null,
          ]);
          const running = loops.get(sink.sinkId);
          if (running && running.key === key) {
            running.sink = sink;
            running.loop.wake();
            continue;
          }
          if (running) await running.loop.stop();
          const entry = { sink, key, loop: undefined as unknown as SinkLoop };
          entry.loop = runSinkLoop({
            ...options,
            sink: () => entry.sink,
            transport: transportFor(sink, options),
            scanLimit: options.batchSize * 20,
            // A signal is worth most at once: a stream gathers 200 ms, not SINK_LINGER_MS (and
            // not nothing: every commit of any space wakes every loop).
            lingerMs: isSignalStream(sink.target) ? SIGNAL_LINGER_MS : options.lingerMs,
            // A stream's batch is re-signed and re-sent whole on a failure: kept short.
            batchSize: isSignalStream(sink.target)
              ? Math.min(options.batchSize, SIGNAL_BATCH_SIZE)
              : options.batchSize,
            logger: logger.child({ sink: sink.sinkId }),
          });
          loops.set(sink.sinkId, entry);
        }
        for (const [sinkId, running] of loops) {
          if (seen.has(sinkId)) continue;
          await running.loop.stop();
          loops.delete(sinkId);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.reloadMs);
          reload = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      clearInterval(heartbeat);
      await Promise.all([...loops.values()].map(({ loop }) => loop.stop()));
    }
    if (lost && !stopping) throw lost;
  }

  let stopLeading: (() => void) | undefined;
  const loop = leadWhileLocked({
    url: options.url,
    connectTimeoutMs: 3000,
    applicationName: `token-authority-deliverer-${process.pid}`,
    lock: ADVISORY_LOCK.deliverer,
    name: 'deliverer',
    failure: 'deliverer failed; retrying',
    standbyRetryMs: options.standbyRetryMs,
    retryMs: Math.min(options.pollMs * 2, 5000),
    logger,
    nap: standby,
    stopping: () => stopping,
    leading: (session) => {
      leader = session !== undefined;
      if (session) stopLeading = () => session.emit('end');
    },
    lead,
  });

  return {
    isLeader: () => leader,
    async stop() {
      stopping = true;
      standby.wake();
      stopLeading?.();
      await loop;
      logger.info('deliverer stopped');
    },
  };
}
