import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { receiverStands } from '../domain/policy.js';
import type { SinkState } from '../domain/sink/decide.js';

/**
 * The receiver-made streams whose receiver stands no more (credential revoked, another space's,
 * the scope taken away): the deliverer pushes nothing to them until it stands again, their
 * cursors kept. One query per reload, for the receivers' credentials alone.
 */
export async function withdrawnReceivers(
  db: Kysely<Database>,
  sinks: readonly SinkState[],
): Promise<ReadonlySet<string>> {
  const receivers = [...new Set(sinks.flatMap((sink) => (sink.receiver ? [sink.receiver] : [])))];
  if (receivers.length === 0) return new Set();
  const rows = await db
    .selectFrom('credentials')
    .select(['client_id', 'space_id', 'status', 'scopes'])
    .where('client_id', 'in', receivers)
    .execute();
  const credentials = new Map(
    rows.map((row) => [
      row.client_id,
      { status: row.status, spaceId: row.space_id, scopes: row.scopes },
    ]),
  );
  return new Set(
    sinks
      .filter(
        (sink) => sink.receiver && !receiverStands(credentials.get(sink.receiver), sink.spaceId),
      )
      .map((sink) => sink.sinkId),
  );
}
