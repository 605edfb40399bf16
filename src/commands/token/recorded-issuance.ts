import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { matchesRecordedIssuance, type IssuedTokenClaims } from '../../domain/policy.js';
import { fullForm } from '../../domain/stored-form.js';
import { streams } from '../../domain/streams.js';
import { secondsOfIso } from '../../domain/times.js';
import { EVENT_COLUMNS, toRecordedEvent, type EventRow } from '#event-log/types.js';

/**
 * Whether the log records the issuance of a token with these claims ({@link
 * matchesRecordedIssuance}): asked only of a shared-ring token of a space with its own ring.
 */
export async function isRecordedIssuance(
  db: Kysely<Database>,
  claims: IssuedTokenClaims,
): Promise<boolean> {
  const streamId = streams.token(claims.jti);
  const row = (await db
    .selectFrom('events')
    .select(EVENT_COLUMNS)
    .where('space_id', '=', claims.space_id)
    .where('stream_id', '=', streamId)
    .executeTakeFirst()) as EventRow | undefined;
  if (!row) return false;
  const event = fullForm(toRecordedEvent(row));
  const data = event.data as Record<string, unknown>;
  const expiresAt = typeof data.expires_at === 'string' ? secondsOfIso(data.expires_at) : undefined;
  return matchesRecordedIssuance({ type: event.type, data, expiresAt }, claims);
}
