import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { retryDelayMs, type Backoff } from './backoff.js';
import { nextBatch, type NextBatch } from './batch-reader.js';
import { advanceCursor, readCursor, recordFailure } from './cursor.js';
import type { DelivererEvents } from './sink-events.js';
import type { SinkDefinition } from './sinks.js';
import { connectFailure, type Transport } from './transport.js';

/** Options of {@link runSinkLoop}; the bounds are the deliverer's settings. */
export interface SinkLoopOptions {
  readonly db: Kysely<Database>;
  /** The sink as last loaded (an admin's pause, resume or change shows up here). */
  readonly sink: () => SinkDefinition;
  readonly transport: Transport;
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
  /**
   * After a batch that reached the log's end, how long appends gather before the next read
   * (SINK_LINGER_MS): under load a sink gets few full batches instead of one per commit, and a
   * sink catching up never waits.
   */
  readonly lingerMs: number;
  readonly logger: Logger;
}

/** One sink's running delivery. */
export interface SinkLoop {
  /** Something was appended (NOTIFY) or the sink changed: look again now. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Delivers one sink's events, at least once and in log order: read the batch after the cursor,
 * send it, and only once the sink acknowledged move the cursor past it. A failure keeps the same
 * batch (same events, same delivery id) for the retry, after a growing, jittered wait; after
 * `maxAttempts` the sink is paused (an event) and probed until it answers. Each sink has a loop of
 * its own with its own timeout: a slow sink holds up nobody else.
 */
export function runSinkLoop(options: SinkLoopOptions): SinkLoop {
  const { db, transport, logger } = options;
  const sinkId = options.sink().sinkId;
  let stopped = false;
  let wake: (() => void) | undefined;
  let halt: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  // A NOTIFY does not cut it short (under load one comes with every commit); only stop does.
  const linger = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        halt = undefined;
        resolve();
      }
      halt = done;
    });

  // Paused by this loop at its retry bound, until the sink list (read every few seconds) says so:
  // without it the loop would retry at once, hundreds of times, until the next reload.
  let pausedHere = false;
  const paused = () => {
    if (pausedHere && options.sink().paused) pausedHere = false;
    return pausedHere || options.sink().paused;
  };

  const pausedTurn = async () => {
    const sink = options.sink();
    // An admin's pause waits for an admin; a failing sink is probed.
    if (!pausedHere && sink.pauseReason !== 'failing') return sleep(options.pollMs);
    await sleep(options.probeMs);
    if (stopped || !paused()) return;
    try {
      await transport.probe();
      pausedHere = false;
      if (await options.events.resume(sinkId))
        logger.info({ sinkId }, 'sink answers again; resumed');
    } catch (error) {
      logger.debug({ sinkId, err: error }, 'paused sink still not answering');
    }
  };

  const loop = (async () => {
    let cursor = await readCursor(db, sinkId);
    let pending: NextBatch | undefined;
    while (!stopped) {
      try {
        if (paused()) {
          pending = undefined;
          await pausedTurn();
          if (!paused()) cursor = await readCursor(db, sinkId);
          continue;
        }
        pending ??= await nextBatch(db, {
          after: cursor.position,
          spaceId: options.sink().spaceId,
          limit: options.batchSize,
          scanLimit: options.scanLimit,
        });
        if (!pending) {
          await sleep(options.pollMs);
          continue;
        }
        if (pending.events.length > 0) {
          try {
            await transport.send({ sinkId, events: pending.events });
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            // The space sees the class only; the detail is for the operator's log.
            const failure = connectFailure(error);
            const attempts = await recordFailure(db, sinkId, failure);
            logger.warn({ sinkId, attempts, failure, error: message }, 'delivery to a sink failed');
            if (attempts >= options.maxAttempts) {
              pausedHere = true;
              if (await options.events.pause(sinkId, attempts, failure)) {
                logger.error({ sinkId, attempts }, 'sink paused after its retry bound');
              }
            } else {
              await sleep(retryDelayMs(options.backoff, attempts));
            }
            continue;
          }
        }
        const moved = await advanceCursor(
          db,
          sinkId,
          cursor.position,
          pending.through,
          pending.events,
        );
        cursor = moved ? { position: pending.through, attempts: 0 } : await readCursor(db, sinkId);
        const atEnd = pending.atEnd;
        pending = undefined;
        if (atEnd && options.lingerMs > 0 && !stopped) await linger(options.lingerMs);
      } catch (error) {
        // The database, not the sink: the batch is kept, the cursor read again.
        logger.error({ sinkId, err: error }, 'sink delivery pass failed; retrying');
        await sleep(options.pollMs);
        cursor = await readCursor(db, sinkId).catch(() => cursor);
      }
    }
  })();

  return {
    wake: () => wake?.(),
    async stop() {
      stopped = true;
      wake?.();
      halt?.();
      transport.close();
      await loop;
    },
  };
}
