import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { retryDelayMs, type Backoff } from '#outbound/backoff.js';
import { nextBatch, type NextBatch } from './batch-reader.js';
import {
  advanceCursor,
  holdRange,
  readCursor,
  recordFailure,
  recordLag,
  type SinkCursor,
} from './cursor.js';
import type { DelivererEvents } from './sink-events.js';
import { readSink, type SinkDefinition } from './sinks.js';
import { LOG_START, type LogPosition } from '#event-log/types.js';
import { connectFailure } from '#outbound/transport.js';
import { UnrecordedDelivery, type SinkTransport } from './transports.js';
import { tracedSend } from './traced-send.js';
import type { LinkedSpans } from '#event-log/event-traces.js';
import { nap } from '../db/nap.js';

const samePosition = (a: LogPosition, b: LogPosition) =>
  a.transactionId === b.transactionId && a.globalPosition === b.globalPosition;
/** How often a sink with nothing to send writes how far it read. */
const IDLE_WRITE_MS = 1000;

/** What the sink (not the database) refused: counted as a failed attempt. */
class SendFailure extends Error {
  constructor(cause: unknown) {
    super('delivery to a sink failed', { cause });
  }
}

/** Options of {@link runSinkLoop}; the bounds are the deliverer's settings. */
export interface SinkLoopOptions {
  readonly db: Kysely<Database>;
  /** The sink as last loaded (an admin's pause, resume or change shows up here). */
  readonly sink: () => SinkDefinition;
  readonly transport: SinkTransport;
  /** The sinks' pause and resume, made by the one handler (commands/sink/deliverer-events.ts). */
  readonly events: DelivererEvents;
  /** Events per delivery (SINK_BATCH_SIZE): with one batch in flight, this bounds memory. */
  readonly batchSize: number;
  /** Events of the log a space's sink looks through per read. */
  readonly scanLimit: number;
  /** Failed attempts in a row after which the sink is paused (SINK_MAX_ATTEMPTS). */
  readonly maxAttempts: number;
  readonly backoff: Backoff;
  /** How often a paused (failing) sink is probed, and an idle one polls without a NOTIFY. */
  readonly probeMs: number;
  readonly pollMs: number;
  /** How long appends gather after reaching the log's end (SINK_LINGER_MS). */
  readonly lingerMs: number;
  readonly logger: Logger;
  /** Tracing on: each delivery a span linked to its events' requests (traced-send.ts). */
  readonly spans?: LinkedSpans;
}

/** One sink's running delivery. */
export interface SinkLoop {
  /** Something was appended (NOTIFY) or the sink changed: look again now. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Delivers one sink's events at least once, in log order: the cursor moves only on acknowledgement,
 * a failure retries the same batch after a jittered wait, `maxAttempts` pauses the sink to be
 * probed. A loop per sink, so a slow sink holds up nobody.
 */
export function runSinkLoop(options: SinkLoopOptions): SinkLoop {
  const { db, transport, logger } = options;
  const sinkId = options.sink().sinkId;
  const withTraces = tracedSend(db, transport, options.sink, options.spans);
  let stopped = false;
  const { sleep, wake } = nap();
  // A NOTIFY does not cut it short (under load one comes with every commit); only stop does.
  const { sleep: linger, wake: halt } = nap();

  // Paused here at the retry bound until the sink list says so: else it retries at once until reload.
  let pausedHere = false;
  const paused = () => {
    if (pausedHere && options.sink().paused) pausedHere = false;
    return pausedHere || options.sink().paused;
  };

  let cursor: SinkCursor = { position: LOG_START, attempts: 0 };
  // Where the row's cursor is: ahead of it, `cursor` may pass other spaces' events unwritten.
  let stored = LOG_START;
  let storedAt = 0;
  let pending: NextBatch | undefined;
  let lagCountedAt = 0;

  /** Sends the batch after the cursor and moves past it once acknowledged; undefined: nothing settled. */
  const deliverNext = async (): Promise<NextBatch | undefined> => {
    pending ??= await nextBatch(db, {
      after: cursor.position,
      spaceId: options.sink().spaceId,
      limit: options.batchSize,
      scanLimit: options.scanLimit,
      ...(cursor.pending ? { pending: cursor.pending } : {}),
    });
    if (!pending) return undefined;
    const batch = pending;
    if (batch.events.length > 0) {
      // Held before the first send: a crash then sends this range again, under the same id.
      if (!cursor.pending) {
        // The row first catches up with what was passed unwritten: a re-send keeps its id.
        if (!samePosition(stored, cursor.position)) {
          if (!(await advanceCursor(db, sinkId, stored, cursor.position, []))) {
            pending = undefined;
            await reread();
            return batch;
          }
          stored = cursor.position;
          storedAt = Date.now();
        }
        await holdRange(db, sinkId, cursor.position, batch.through);
        cursor = { ...cursor, pending: batch.through };
      }
      const send = await withTraces({
        sinkId,
        events: batch.events,
        from: cursor.position,
        through: batch.through,
      });
      // Read just before every send, not only at the list's reload: none begins after a DELETE.
      const row = await readSink(db, sinkId);
      if (!row || row.deleted) return void (stopped = true);
      await send().catch((error: unknown) => {
        throw error instanceof UnrecordedDelivery ? error : new SendFailure(error);
      });
    }
    // A range with nothing of the sink's moves the row at most once a second: an idle sink woken
    // by every commit of other spaces writes nothing for each (review of stop 79).
    if (batch.events.length === 0 && !cursor.pending && Date.now() - storedAt < IDLE_WRITE_MS) {
      cursor = { ...cursor, position: batch.through };
      pending = undefined;
      return batch;
    }
    const moved = await advanceCursor(db, sinkId, stored, batch.through, batch.events, {
      caughtUp: batch.atEnd,
    });
    cursor = moved ? { position: batch.through, attempts: 0 } : await readCursor(db, sinkId);
    stored = cursor.position;
    storedAt = Date.now();
    if (moved && batch.atEnd) lagCountedAt = Date.now();
    pending = undefined;
    return batch;
  };

  /** The lag, recounted at most once per probe interval (a paused sink's every ten). */
  const refreshLag = async () => {
    const every = paused() ? options.probeMs * 10 : options.probeMs;
    if (Date.now() - lagCountedAt < every) return;
    lagCountedAt = Date.now();
    await recordLag(db, sinkId, options.sink().spaceId, stored);
  };

  const failed = async (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    // The space sees the class only; the detail is for the operator's log.
    const failure = connectFailure(error);
    const attempts = await recordFailure(db, sinkId, failure);
    logger.warn({ sinkId, attempts, failure, error: message }, 'delivery to a sink failed');
    return { attempts, failure };
  };

  const pausedTurn = async () => {
    const sink = options.sink();
    // An admin's pause waits for an admin; a failing sink is probed.
    if (!pausedHere && sink.pauseReason !== 'failing') return sleep(options.pollMs);
    await sleep(options.probeMs);
    if (stopped || !paused()) return;
    // The probe is the batch waiting, so a receiver refusing batches stays paused.
    try {
      if (!(await deliverNext())) {
        if (stopped) return; // deleted meanwhile: nothing to probe or resume
        await transport.probe().catch((error: unknown) => {
          throw new SendFailure(error);
        });
      }
    } catch (error) {
      if (error instanceof SendFailure) await failed(error.cause);
      logger.debug({ sinkId, err: error }, 'paused sink still not taking its batch');
      return;
    }
    pausedHere = false;
    lagCountedAt = 0;
    if (await options.events.resume(sinkId)) logger.info({ sinkId }, 'sink took a batch; resumed');
  };

  const reread = async () => {
    cursor = await readCursor(db, sinkId);
    stored = cursor.position;
  };

  const loop = (async () => {
    await reread();
    while (!stopped) {
      try {
        await refreshLag();
        if (paused()) {
          await pausedTurn();
          if (!paused()) await reread();
          continue;
        }
        let batch: NextBatch | undefined;
        try {
          batch = await deliverNext();
        } catch (error) {
          if (!(error instanceof SendFailure)) throw error;
          const { attempts, failure } = await failed(error.cause);
          if (attempts >= options.maxAttempts) {
            pausedHere = true;
            lagCountedAt = 0; // its lag counted now, for its status: nothing will move it
            if (await options.events.pause(sinkId, attempts, failure)) {
              logger.error({ sinkId, attempts }, 'sink paused after its retry bound');
            }
          } else {
            await sleep(retryDelayMs(options.backoff, attempts));
          }
          continue;
        }
        if (!batch) {
          await sleep(options.pollMs);
          continue;
        }
        if (batch.atEnd && options.lingerMs > 0 && !stopped) await linger(options.lingerMs);
      } catch (error) {
        // The database, not the sink: the batch is kept, the cursor read again.
        logger.error({ sinkId, err: error }, 'sink delivery pass failed; retrying');
        await sleep(options.pollMs);
        await reread().catch(() => undefined);
      }
    }
  })();

  return {
    wake,
    async stop() {
      stopped = true;
      wake();
      halt();
      transport.close();
      await loop;
    },
  };
}
