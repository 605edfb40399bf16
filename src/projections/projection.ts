import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { LogRange } from '#event-log/log-range.js';

/**
 * An asynchronous projection: a name (its checkpoint key), how to apply a settled range of the
 * log, and how to reset. Projections are set-based SQL over the range, so events never travel to
 * the projector and back.
 */
export interface Projection {
  readonly name: string;
  /** Applies every event in `range` in the checkpoint's transaction. Deterministic: no now(). */
  applyRange(trx: Transaction<Database>, range: LogRange): Promise<void>;
  /** Removes every row, for a rebuild from position zero. */
  reset(trx: Transaction<Database>): Promise<void>;
}
