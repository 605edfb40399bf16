import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { purgedBy } from './purge.js';

/** A response kept for retries of the same Idempotency-Key; see migration 011. */
export interface IdempotentResponse {
  readonly spaceId: string;
  readonly keyHash: string;
  readonly requestHash: string;
  readonly sealedResponse: unknown;
  readonly expiresAt: Date;
}

/** The unexpired response kept for this key in this space, if any. */
export async function findIdempotentResponse(
  db: Kysely<Database>,
  spaceId: string,
  keyHash: string,
): Promise<IdempotentResponse | undefined> {
  const row = await db
    .selectFrom('idempotent_responses')
    .select(['request_hash', 'sealed_response', 'expires_at'])
    .where('space_id', '=', spaceId)
    .where('idempotency_key_hash', '=', keyHash)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return row
    ? {
        spaceId,
        keyHash,
        requestHash: row.request_hash,
        sealedResponse: row.sealed_response,
        expiresAt: row.expires_at,
      }
    : undefined;
}

/**
 * Keeps a response in the transaction of the change it answers. A concurrent request with the
 * same key waits on the primary key and fails with a unique violation once this one commits.
 */
export async function writeIdempotentResponse(
  trx: Transaction<Database>,
  response: IdempotentResponse,
): Promise<void> {
  await trx
    .insertInto('idempotent_responses')
    .values({
      space_id: response.spaceId,
      idempotency_key_hash: response.keyHash,
      request_hash: response.requestHash,
      sealed_response: JSON.stringify(response.sealedResponse),
      expires_at: response.expiresAt,
    })
    .execute();
}

/**
 * Drops expired responses (the changes they answered stay in the log, naming the key's hash):
 * a sealed secret should not outlive the retry window. Run by the projector's leader, through
 * the database's own function (migration 025): the projector's role may not DELETE a response
 * still in its window, which would let a retried rotation run twice.
 */
export async function purgeExpiredIdempotentResponses(db: Kysely<Database>): Promise<number> {
  return purgedBy(db, 'purge_expired_idempotent_responses');
}
