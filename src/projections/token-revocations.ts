import type { Kysely, Transaction } from 'kysely';
import { purgedBy } from './purge.js';
import type { Database } from '../db/schema.js';
import type { Token } from '../domain/token/state.js';
import { dateOfSeconds } from '../domain/times.js';

/** The `token_revocations` read model, written in the revocation's append so it holds at once. */
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

/** Drops expired tokens' revocations via the owner's function: the projector cannot un-revoke. */
export async function purgeExpiredRevocations(db: Kysely<Database>): Promise<number> {
  return purgedBy(db, 'purge_expired_revocations');
}
