import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Token } from '../domain/token/state.js';

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
      expires_at: new Date(token.expiresAt * 1000),
      revoked_at: new Date(token.revokedAt),
    })
    .execute();
}
