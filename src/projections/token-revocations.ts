import type { Kysely, Transaction } from 'kysely';
import { purgedBy } from './purge.js';
import type { Database } from '../db/schema.js';
import type { Token } from '../domain/token/state.js';
import { dateOfSeconds } from '../domain/times.js';

/**
 * The `token_revocations` read model: a revoked token's state, as `evolveToken` leaves it, written
 * by the revocation command in the append's transaction so the revocation holds at once.
 */
export async function writeTokenRevocation(
  trx: Transaction<Database>,
  spaceId: string,
  token: Token,
): Promise<void> {
  if (token.revokedAt === null) return;
  await trx
    .insertInto('token_revocations')
    .values({
      jti: token.jti,
      space_id: spaceId,
      client_id: token.clientId,
      token_kind: token.kind,
      expires_at: dateOfSeconds(token.expiresAt),
      revoked_at: new Date(token.revokedAt),
    })
    .execute();
}

/**
 * Drops revocations of tokens that have expired (a minute's grace for clock skew): an expired
 * token is refused anyway, so its row only grows the table every lookup reads. Its
 * `token-revoked` event stays in the log. Run by the projector's leader, through the database's
 * own function (migration 025): the projector's role may not DELETE a revocation, so a
 * compromised projector cannot un-revoke a live token. Returns rows removed.
 */
export async function purgeExpiredRevocations(db: Kysely<Database>): Promise<number> {
  return purgedBy(db, 'purge_expired_revocations');
}
