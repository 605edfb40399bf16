import { withinMs } from './within.js';
import type pg from 'pg';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { EVENTS_CHANNEL } from '#event-log/notify.js';
import { sealLog } from '../audit-trail/seal/sealer.js';
import { signTreeHeads } from '../audit-trail/seal/tree-head-signing.js';
import { ADVISORY_LOCK } from '../db/advisory-locks.js';
import { tracedBatches } from './traced-batches.js';
import type { LinkedSpans } from '#event-log/event-traces.js';
import type { Projection } from './projection.js';
import { nap } from '../db/nap.js';
import { leadWhileLocked } from '../db/leader-session.js';
import { endFrozenSessions } from './frozen-sessions.js';

/** Options of {@link startProjector}. */
export interface ProjectorOptions {
  readonly db: Kysely<Database>;
  /** A connection string for the leader's own session (advisory lock + LISTEN). */
  readonly url: string;
  readonly projections: readonly Projection[];
  readonly batchSize: number;
  /** While behind, batches double up to this many times `batchSize` (default 1: they never grow). */
  readonly catchUpFactor?: number;
  readonly pollIntervalMs: number;
  readonly logger: Logger;
  /** Also grow the Merkle trees (the sealer follows the log like a projection). */
  readonly seal: boolean;
  /** Seal at most this often (unless full): at a trickle this bounds how many rows seals take. */
  readonly sealIntervalMs?: number;
  /** Sign each tree's head every `intervalMs` and on stop (needs `seal`), as signTreeHeads does. */
  readonly checkpoints?: Parameters<typeof signTreeHeads>[2] & {
    readonly intervalMs: number;
    /** Signs a tree's head as a C2SP checkpoint: each space's tree, and the log's. */
    readonly signTreeHead: (treeId: string, size: number, root: Buffer) => string;
  };
  readonly standbyRetryMs?: number;
  /** stop() gives up on a database that does not answer after this (each step; default 3 s). */
  readonly giveUpAfterMs?: number;
  /** The leader's lease: a silent session is ended, so a hung leader hands over. */
  readonly leaseMs?: number;
  /** Wait after a pass that found work, so batches grow under load; bounds the added lag. */
  readonly settleMs?: number;
  /** The pool's lock_timeout: then a pass that gave up ends a frozen projector's session. */
  readonly lockWaitMs?: number;
  /** Tracing on: each batch a span linked to its events' requests (traced-batches.ts). */
  readonly spans?: LinkedSpans;
}

/** A running projector. */
export interface RunningProjector {
  isLeader(): boolean;
  /** Resolves after the next full pass over every projection (tests, readiness). */
  nextPass(): Promise<void>;
  stop(): Promise<void>;
}

/** Keeps every projection and tree current; only the advisory lock's holder works. */
export function startProjector(options: ProjectorOptions): RunningProjector {
  const { logger, giveUpAfterMs: giveUpMs = 3000 } = options;
  let stopping = false;
  let leader = false;
  const { sleep, wake } = nap();
  let passWaiters: Array<() => void> = [];

  let lastCheckpointAt = Date.now();
  let lastSealAt = 0;
  let sealFull = false;
  // Behind, each batch doubles up to catchUpFactor times: its fixed cost is spread over more events.
  const ceiling = options.batchSize * (options.catchUpFactor ?? 1);
  const next = (size: number, done: number) =>
    done >= size ? Math.min(size * 2, ceiling) : options.batchSize;
  let projectSize = options.batchSize;
  const projectBatch = tracedBatches(options);
  let sealSize = options.batchSize;
  const checkpoint = async () => {
    if (!options.checkpoints) return;
    const { signTreeHead, ...signing } = options.checkpoints;
    const signed = await signTreeHeads(options.db, signTreeHead, signing);
    if (signed > 0) logger.info({ signed }, 'tree heads signed');
  };

  async function lead(session: pg.Client): Promise<void> {
    let lost: Error | undefined;
    session.on('error', (error) => {
      lost = error;
      wake();
    });
    session.on('end', () => {
      lost ??= new Error('leader session ended');
      wake();
    });
    session.on('notification', () => wake());
    await session.query(`LISTEN ${EVENTS_CHANNEL}`);
    // The lease: a silent session is ended by the server, and the lock goes with it.
    const leaseMs = options.leaseMs ?? 5000;
    // Postgres 14 and later; before, a paused leader keeps the lock until its session dies.
    await session
      .query(`SET idle_session_timeout = ${Math.round(leaseMs)}`)
      .catch((error: unknown) => {
        if ((error as { code?: string }).code !== '42704') throw error;
        logger.warn('idle_session_timeout unknown (Postgres < 14): the leader holds no lease');
      });
    let beating = false;
    const heartbeat = setInterval(() => {
      if (beating) return;
      beating = true;
      session
        .query('SELECT 1')
        .catch((error: unknown) => {
          lost ??= error as Error;
          wake();
        })
        .finally(() => (beating = false));
    }, leaseMs / 3);
    try {
      // Project, seal, checkpoint, until stopped or the lock's session is lost.
      while (!stopping && !lost) {
        let worked = await projectBatch(projectSize);
        projectSize = next(projectSize, worked);
        if (options.seal) {
          if (sealFull || Date.now() - lastSealAt >= (options.sealIntervalMs ?? 0)) {
            const sealed = await sealLog(options.db, sealSize);
            lastSealAt = Date.now();
            sealFull = sealed >= sealSize;
            sealSize = next(sealSize, sealed);
            worked += sealed;
          }
        }
        if (
          options.checkpoints &&
          Date.now() - lastCheckpointAt >= options.checkpoints.intervalMs
        ) {
          lastCheckpointAt = Date.now();
          await checkpoint();
        }
        if (worked === 0) {
          const waiters = passWaiters;
          passWaiters = [];
          for (const resolve of waiters) resolve();
          await sleep(options.pollIntervalMs);
        } else if (worked < options.batchSize && (options.settleMs ?? 100) > 0) {
          await new Promise((resolve) => setTimeout(resolve, options.settleMs ?? 100));
        }
      }
    } catch (error) {
      // Held past the wait, maybe by a projector frozen where no timeout reaches (frozen-sessions.ts).
      if ((error as { code?: string }).code === '55P03' && !lost && options.lockWaitMs) {
        await endFrozenSessions(session, options.lockWaitMs, logger);
      }
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
    if (lost && !stopping) throw lost;
  }

  const loop = leadWhileLocked({
    url: options.url,
    connectTimeoutMs: giveUpMs,
    applicationName: `token-authority-projector-leader-${process.pid}`,
    lock: ADVISORY_LOCK.projectorLeader,
    name: 'projector',
    failure: 'projector pass failed; retrying',
    standbyNote: 'another projector leads; standing by',
    standbyRetryMs: options.standbyRetryMs ?? 1000,
    retryMs: Math.min(options.pollIntervalMs * 2, 5000),
    logger,
    nap: { sleep, wake },
    stopping: () => stopping,
    leading: (session) => (leader = session !== undefined),
    lead,
  });

  return {
    isLeader: () => leader,
    nextPass: () =>
      new Promise<void>((resolve) => {
        passWaiters.push(resolve);
        wake();
      }),
    async stop() {
      stopping = true;
      wake();
      const wasLeader = leader;
      // A last checkpoint keeps the unsealed window short across restarts.
      let answered = await withinMs(
        loop.then(() => true),
        giveUpMs,
      );
      if (wasLeader && options.checkpoints && answered) {
        const written = sealLog(options.db, options.batchSize)
          .then(checkpoint)
          .then(() => true);
        answered = await withinMs(written, giveUpMs).catch((error: unknown) => {
          logger.warn({ err: error }, 'no checkpoint at shutdown');
          return true;
        });
      }
      if (wasLeader && !answered) logger.warn('no checkpoint at shutdown: the database is gone');
      for (const resolve of passWaiters) resolve();
      logger.info('projector stopped');
    },
  };
}
