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

/** Keeps a response in its change's transaction; a concurrent same-key request fails on the key. */
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

/** Drops expired responses via the owner's function: the projector may not DELETE a live one. */
export async function purgeExpiredIdempotentResponses(db: Kysely<Database>): Promise<number> {
  return purgedBy(db, 'purge_expired_idempotent_responses');
}
