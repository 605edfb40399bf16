import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { RecordedEvent } from '../event-store/types.js';

/** An asynchronous projection: a name (its checkpoint key), how to apply events, how to reset. */
export interface Projection {
  readonly name: string;
  /** Applies a batch in the checkpoint's transaction. Must be deterministic: no now(). */
  apply(trx: Transaction<Database>, events: readonly RecordedEvent[]): Promise<void>;
  /** Removes every row, for a rebuild from position zero. */
  reset(trx: Transaction<Database>): Promise<void>;
}
