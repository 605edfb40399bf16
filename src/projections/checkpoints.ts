import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { LOG_START, type LogPosition } from '#event-log/types.js';

const { transactionId: transaction_id, globalPosition: global_position } = LOG_START;
const AT_START = { transaction_id, global_position };

/** Where each of `projections` has read up to, their rows locked: a second batch queues behind. */
async function readCheckpoints(
  db: Kysely<Database>,
  projections: readonly string[],
): Promise<Map<string, LogPosition>> {
  // One statement for the whole group: on 2 cores a round trip per projection was a tenth of the
  // projector's CPU. Rows lock in name order, whatever order the group lists them in.
  const rows = await db
    .selectFrom('projection_checkpoints')
    .select([
      'projection',
      sql<string>`transaction_id::text`.as('transaction_id'),
      'global_position',
    ])
    .where('projection', 'in', projections)
    .orderBy('projection')
    .forUpdate()
    .execute();
  return new Map(
    rows.map((row) => [
      row.projection,
      { transactionId: row.transaction_id, globalPosition: row.global_position },
    ]),
  );
}

/** Checkpoint rows a group asked for and did not find: made outside the batch, then retried. */
export class CheckpointsMissing extends Error {
  constructor(readonly projections: readonly string[]) {
    super(`no checkpoint row for ${projections.join(', ')}`);
  }
}

/**
 * Locks the rows of `projections`, returning their positions in order. A missing row throws: made in
 * the batch, its lock is out of name order (two batches could deadlock); see createCheckpoints.
 */
export async function lockCheckpoints(
  trx: Transaction<Database>,
  projections: readonly string[],
): Promise<LogPosition[]> {
  // A name twice would apply its batch twice under one compare-and-set.
  if (new Set(projections).size !== projections.length) {
    throw new Error(`a group names a projection twice: ${projections.join(', ')}`);
  }
  const found = await readCheckpoints(trx, projections);
  const missing = projections.filter((projection) => !found.has(projection));
  if (missing.length > 0) throw new CheckpointsMissing(missing);
  return projections.map((projection) => found.get(projection)!);
}

/** Makes the missing rows of `projections` at the log's start, outside any batch. */
export async function createCheckpoints(db: Kysely<Database>, names: readonly string[]) {
  const rows = names.map((projection) => ({ projection, ...AT_START }));
  await db
    .insertInto('projection_checkpoints')
    .values(rows)
    .onConflict((oc) => oc.column('projection').doNothing())
    .execute();
}

/**
 * Compare-and-set of every one of `projections` from `from` to `to`; false means another
 * projector moved one of them: the caller rolls back.
 */
export async function advanceCheckpoints(
  trx: Transaction<Database>,
  projections: readonly string[],
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
    .where('projection', 'in', projections)
    .where(sql<boolean>`transaction_id = ${from.transactionId}::xid8`)
    .where('global_position', '=', from.globalPosition)
    .executeTakeFirst();
  return result.numUpdatedRows === BigInt(projections.length);
}

/** Puts the checkpoint back to the start of the log. */
export async function resetCheckpoint(
  trx: Transaction<Database>,
  projection: string,
): Promise<void> {
  await trx
    .insertInto('projection_checkpoints')
    .values({ projection, ...AT_START })
    .onConflict((oc) =>
      oc.column('projection').doUpdateSet({ ...AT_START, updated_at: sql`now()` }),
    )
    .execute();
}
