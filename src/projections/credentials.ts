import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CredentialView } from '../domain/credential-view.js';
import { parseEventData } from '../domain/events.js';
import type { RecordedEvent } from '../event-store/types.js';

/**
 * Inline projection of credential events into the `credentials` read model. Runs inside the
 * append's transaction, so a credential can be used the moment its creation returns.
 * Token issuance never writes here: a per-credential row touched by every issuance would be a
 * lock all of that client's concurrent requests queue on.
 */
export async function projectCredentialEvents(
  trx: Transaction<Database>,
  events: readonly RecordedEvent[],
): Promise<void> {
  for (const event of events) {
    if (event.type !== 'credential-created') continue;
    const data = parseEventData('credential-created', event.data);
    await trx
      .insertInto('credentials')
      .values({
        client_id: data.client_id,
        space_id: event.spaceId,
        name: data.name,
        description: data.description,
        secret_hash: Buffer.from(data.secret_hash, 'base64url'),
        status: 'active',
        stream_version: event.streamPosition,
        created_by: data.created_by,
        created_at: event.recordedAt,
        updated_at: event.recordedAt,
      })
      .execute();
  }
}

/** The credential with this client id, or undefined. */
export async function findCredential(
  db: Kysely<Database>,
  clientId: string,
): Promise<CredentialView | undefined> {
  const row = await db
    .selectFrom('credentials')
    .select(['client_id', 'space_id', 'status', 'secret_hash'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row
    ? {
        clientId: row.client_id,
        spaceId: row.space_id,
        status: row.status,
        secretHash: row.secret_hash,
      }
    : undefined;
}
