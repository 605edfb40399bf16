import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { LOG_START, type LogPosition } from '#event-log/types.js';

/** Where `projection` has read up to, its row locked: concurrent batches queue rather than collide. */
async function readCheckpoint(db: Kysely<Database>, projection: string): Promise<LogPosition> {
  const row = await db
    .selectFrom('projection_checkpoints')
    .select([sql<string>`transaction_id::text`.as('transaction_id'), 'global_position'])
    .where('projection', '=', projection)
    .forUpdate()
    .executeTakeFirst();
  return row
    ? { transactionId: row.transaction_id, globalPosition: row.global_position }
    : LOG_START;
}

/** Locks the checkpoint row, creating it at the log's start if missing (else its CAS stalls). */
export async function lockCheckpoint(
  trx: Transaction<Database>,
  projection: string,
): Promise<LogPosition> {
  const locked = await trx
    .selectFrom('projection_checkpoints')
    .select('projection')
    .where('projection', '=', projection)
    .forUpdate()
    .executeTakeFirst();
  // The usual case is one locking read; the insert happens once in a projection's life.
  if (!locked) {
    await trx
      .insertInto('projection_checkpoints')
      .values({ projection, transaction_id: '0', global_position: 0 })
      .onConflict((oc) => oc.column('projection').doNothing())
      .execute();
  }
  return readCheckpoint(trx, projection);
}

/** Compare-and-set; false means another projector moved it: the caller rolls back. */
export async function advanceCheckpoint(
  trx: Transaction<Database>,
  projection: string,
  from: LogPosition,
  to: LogPosition,
): Promise<boolean> {
  const result = await trx
    .updateTable('projection_checkpoints')
    .set({
      transaction_id: sql`${to.transactionId}::xid8`,
      global_position: to.globalPosition,
      updated_at: sql`now()`,
    })
    .where('projection', '=', projection)
    .where(sql<boolean>`transaction_id = ${from.transactionId}::xid8`)
    .where('global_position', '=', from.globalPosition)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Puts the checkpoint back to the start of the log. */
export async function resetCheckpoint(
  trx: Transaction<Database>,
  projection: string,
): Promise<void> {
  await trx
    .insertInto('projection_checkpoints')
    .values({ projection, transaction_id: '0', global_position: 0 })
    .onConflict((oc) =>
      oc.column('projection').doUpdateSet({
        transaction_id: sql`'0'::xid8`,
        global_position: 0,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}
