import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Records a client assertion's jti until the assertion expires. False when it was already there:
 * a replay, refused by every API process alike (the primary key decides, not a process's memory).
 */
export async function rememberAssertionJti(
  db: Kysely<Database>,
  assertion: {
    readonly spaceId: string;
    readonly clientId: string;
    readonly jti: string;
    readonly expiresAt: Date;
  },
): Promise<boolean> {
  const result = await db
    .insertInto('client_assertion_jtis')
    .values({
      space_id: assertion.spaceId,
      client_id: assertion.clientId,
      jti_hash: createHash('sha256').update(assertion.jti, 'utf8').digest('base64url'),
      expires_at: assertion.expiresAt,
    })
    .onConflict((oc) => oc.columns(['space_id', 'client_id', 'jti_hash']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Drops the jtis of expired assertions (an expired assertion is refused anyway). */
export async function purgeExpiredAssertionJtis(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('client_assertion_jtis')
    .where('expires_at', '<', sql<Date>`now() - interval '1 minute'`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
