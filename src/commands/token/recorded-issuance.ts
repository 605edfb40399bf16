import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { matchesRecordedIssuance, type IssuedTokenClaims } from '../../domain/policy.js';
import { fullForm } from '../../domain/stored-form.js';
import { streams } from '../../domain/streams.js';
import { secondsOfIso } from '../../domain/times.js';

/**
 * Whether the log records the issuance of a token with these claims (the policy's
 * {@link matchesRecordedIssuance}), read by its stream in its space: one lookup on the log's hash
 * index. Asked only of a shared-ring token naming a space that has turned its own ring on.
 */
export async function isRecordedIssuance(
  db: Kysely<Database>,
  claims: IssuedTokenClaims,
): Promise<boolean> {
  const streamId = streams.token(claims.jti);
  const row = await db
    .selectFrom('events')
    .select(['event_id', 'event_type', 'data', 'metadata'])
    .where('space_id', '=', claims.space_id)
    .where('stream_id', '=', streamId)
    .executeTakeFirst();
  if (!row) return false;
  const { data } = fullForm({
    eventId: row.event_id,
    type: row.event_type,
    streamId,
    data: row.data,
    metadata: row.metadata as Record<string, unknown>,
  }) as { data: Record<string, unknown> };
  const expiresAt = typeof data.expires_at === 'string' ? secondsOfIso(data.expires_at) : undefined;
  return matchesRecordedIssuance({ type: row.event_type, data, expiresAt }, claims);
}
