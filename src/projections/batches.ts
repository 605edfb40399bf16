import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { nextLogRange, type LogRange } from '#event-log/log-range.js';
import {
  advanceCheckpoints,
  CheckpointsMissing,
  createCheckpoints,
  lockCheckpoints,
  resetCheckpoint,
} from './checkpoints.js';
import type { Projection } from './projection.js';

class CheckpointMoved extends Error {}

/**
 * Projects the next batch: the checkpoint row locked first (a second projector waits), rows and a
 * compare-and-set checkpoint commit together, so a crash loses nothing and counts nothing twice.
 */
export function projectNextBatch(
  db: Kysely<Database>,
  projection: Projection,
  batchSize: number,
): Promise<number> {
  return projectNextBatchTogether(db, [projection], batchSize);
}

/** One batch for projections whose checkpoints agree, in one transaction; else each on its own. */
export async function projectNextBatchTogether(
  db: Kysely<Database>,
  projections: readonly Projection[],
  batchSize: number,
  projected?: (range: LogRange) => void,
): Promise<number> {
  const diverged = Symbol('diverged');
  const names = projections.map((projection) => projection.name);
  for (let attempt = 0; ; attempt += 1) {
    let done: LogRange | undefined;
    try {
      const result = await db.transaction().execute(async (trx) => {
        const positions = await lockCheckpoints(trx, names);
        const from = positions[0]!;
        const same = positions.every(
          (p) => p.transactionId === from.transactionId && p.globalPosition === from.globalPosition,
        );
        if (!same) return diverged;
        const range = await nextLogRange(trx, from, batchSize);
        if (!range) return 0;
        for (const projection of projections) await projection.applyRange(trx, range);
        if (!(await advanceCheckpoints(trx, names, from, range.through)))
          throw new CheckpointMoved();
        done = range;
        return range.count;
      });
      // Committed: only now is the range projected.
      if (done) projected?.(done);
      if (result !== diverged) return result;
      break;
    } catch (error) {
      if (error instanceof CheckpointMoved) return 0;
      // Made once in a projection's life, outside any batch (checkpoints.ts), then tried again.
      if (!(error instanceof CheckpointsMissing) || attempt > 0) throw error;
      await createCheckpoints(db, error.projections);
    }
  }
  let total = 0;
  for (const projection of projections) total += await projectNextBatch(db, projection, batchSize);
  return total;
}

/** Projects until the projection has caught up with the committed log. */
export async function catchUp(
  db: Kysely<Database>,
  projection: Projection,
  batchSize: number,
  onBatch?: (eventsSoFar: number) => void,
): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await projectNextBatch(db, projection, batchSize);
    total += count;
    onBatch?.(total);
    if (count === 0) return total;
  }
}

/** Empties a projection and replays it from the start of the log. */
export async function rebuildProjection(
  db: Kysely<Database>,
  projection: Projection,
  batchSize: number,
  onBatch?: (eventsSoFar: number) => void,
): Promise<number> {
  await db.transaction().execute(async (trx) => {
    // The checkpoint first: a batch in flight finishes before the view is emptied, else its rows
    // could survive the emptying and be counted again by the replay.
    await resetCheckpoint(trx, projection.name);
    await projection.reset(trx);
  });
  return catchUp(db, projection, batchSize, onBatch);
}
