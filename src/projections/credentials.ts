import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CredentialView } from '../domain/credential-view.js';
import { parseEventData, type EventType } from '../domain/events.js';
import type { RecordedEvent } from '../event-store/types.js';

/**
 * Inline projection of credential and token-revocation events into the validation read models
 * (`credentials`, `token_revocations`). Runs inside the append's transaction, so a credential
 * works, a rotated secret changes and a revocation holds the moment the request returns.
 * Token issuance never writes here: a per-credential row touched by every issuance would be a
 * lock all of that client's concurrent requests queue on.
 */
export async function projectCredentialEvents(
  trx: Transaction<Database>,
  events: readonly RecordedEvent[],
): Promise<void> {
  for (const event of events) await INLINE[event.type as EventType]?.(trx, event);
}

type Apply = (trx: Transaction<Database>, event: RecordedEvent) => Promise<void>;

// Keyed on the registry: a new event type does not compile until it says whether it changes a
// validation read model.
const INLINE: { readonly [Type in EventType]: Apply | null } = {
  'credential-created': async (trx, event) => {
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
        rate_limit_per_minute: data.rate_limit_per_minute ?? null,
      })
      .execute();
  },
  'credential-rate-limit-changed': async (trx, event) => {
    const data = parseEventData('credential-rate-limit-changed', event.data);
    await trx
      .updateTable('credentials')
      .set({
        rate_limit_per_minute: data.rate_limit_per_minute,
        stream_version: event.streamPosition,
        updated_at: event.recordedAt,
      })
      .where('client_id', '=', data.client_id)
      .execute();
  },
  'credential-secret-rotated': async (trx, event) => {
    const data = parseEventData('credential-secret-rotated', event.data);
    await trx
      .updateTable('credentials')
      .set((eb) => ({
        previous_secret_hash: eb.ref('secret_hash'),
        previous_secret_expires_at: new Date(data.previous_secret_expires_at),
        secret_hash: Buffer.from(data.secret_hash, 'base64url'),
        stream_version: event.streamPosition,
        updated_at: event.recordedAt,
      }))
      .where('client_id', '=', data.client_id)
      .execute();
  },
  'credential-revoked': async (trx, event) => {
    const data = parseEventData('credential-revoked', event.data);
    await trx
      .updateTable('credentials')
      .set({
        status: 'revoked',
        revoked_at: event.recordedAt,
        revoked_reason: data.reason,
        previous_secret_hash: null,
        previous_secret_expires_at: null,
        stream_version: event.streamPosition,
        updated_at: event.recordedAt,
      })
      .where('client_id', '=', data.client_id)
      .execute();
  },
  'token-revoked': async (trx, event) => {
    const data = parseEventData('token-revoked', event.data);
    await trx
      .insertInto('token_revocations')
      .values({
        jti: data.jti,
        space_id: event.spaceId,
        client_id: data.client_id,
        token_kind: data.token_kind,
        expires_at: new Date(data.expires_at),
        revoked_at: event.recordedAt,
      })
      .execute();
  },
  'private-token-issued': null,
  'public-token-issued': null,
  'client-authentication-failed': null,
  'signing-key-generated': null,
  'signing-key-retired': null,
  'client-authentication-failures-summarized': null,
  'audit-log-read': null,
};

/** The credential with this client id, or undefined. */
export async function findCredential(
  db: Kysely<Database>,
  clientId: string,
): Promise<CredentialView | undefined> {
  const row = await db
    .selectFrom('credentials')
    .select([
      'client_id',
      'space_id',
      'status',
      'secret_hash',
      'previous_secret_hash',
      'previous_secret_expires_at',
      'revoked_at',
      'stream_version',
      'rate_limit_per_minute',
    ])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row
    ? {
        clientId: row.client_id,
        spaceId: row.space_id,
        status: row.status,
        secretHash: row.secret_hash,
        previousSecretHash: row.previous_secret_hash,
        previousSecretExpiresAt: row.previous_secret_expires_at?.getTime() ?? null,
        revokedAt: row.revoked_at?.getTime() ?? null,
        version: row.stream_version,
        rateLimitPerMinute: row.rate_limit_per_minute,
      }
    : undefined;
}
