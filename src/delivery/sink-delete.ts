import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { decideDeleteSink } from '../domain/sink/decide.js';
import { refused, type SinkAdminContext, type SinkCommand } from './sink-admin.js';
import { readSink } from './sinks.js';

/**
 * An admin deletes their space's sink: sink-deleted and the row marked so, its secret and sealed
 * path dropped, in one transaction; the deliverer stops its loop at its next reading of the sink
 * list. Deleting it again records nothing and answers the same; an operator's sink, or another
 * space's, is not found.
 */
export async function deleteSink(ctx: SinkAdminContext, command: SinkCommand): Promise<void> {
  await ctx.events.transact(async (tx) => {
    const state = await readSink(tx.db, command.sinkId, { forUpdate: true });
    const decision = decideDeleteSink(
      { eventId: ctx.ids.eventId(), metadata: command.metadata, spaceId: command.spaceId },
      state,
    );
    if (!decision.ok) return refused();
    if (decision.events.length === 0) return;
    await tx.appendNewStream({ ...decision.facts, events: decision.events });
    await writeSinkDeleted(tx.db, command.sinkId);
  });
}

/**
 * Marks a sink deleted, in the transaction of its sink-deleted: the row stays (its id answers as
 * before, a DELETE again is a no-op), its secret and sealed path are dropped.
 */
async function writeSinkDeleted(db: Kysely<Database>, sinkId: string): Promise<void> {
  await db
    .updateTable('audit_sinks')
    .set({ deleted_at: sql<Date>`now()`, sealed_secret: null, sealed_path: null })
    .where('sink_id', '=', sinkId)
    .execute();
}
