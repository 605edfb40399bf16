import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { LogRange } from '#event-log/log-range.js';

/** An asynchronous projection: set-based SQL over a settled range of the log. */
export interface Projection {
  readonly name: string;
  /** Applies every event in `range` in the checkpoint's transaction. Deterministic: no now(). */
  applyRange(trx: Transaction<Database>, range: LogRange): Promise<void>;
  /** Removes every row, for a rebuild from position zero. */
  reset(trx: Transaction<Database>): Promise<void>;
}
