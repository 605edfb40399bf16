import type { Kysely } from 'kysely';
import type { AccessTokenClaims } from '../../crypto/access-tokens.js';
import type { Database } from '../../db/schema.js';
import { fullForm } from '../../domain/stored-form.js';
import { streams } from '../../domain/streams.js';
import { secondsOfIso } from '../../domain/times.js';

/**
 * Whether the log records the issuance of a token with these claims: its stream in its space, of
 * its kind, for its client, audience, expiry, scopes and key binding. One lookup by stream (the
 * log's hash index). Asked only of a shared-ring token naming a space that has turned its own
 * ring on (issue 51): a holder of the shared key could sign anything, but cannot have recorded it.
 */
export async function isRecordedIssuance(
  db: Kysely<Database>,
  claims: AccessTokenClaims,
): Promise<boolean> {
  const streamId = streams.token(claims.jti);
  const row = await db
    .selectFrom('events')
    .select(['event_id', 'event_type', 'data', 'metadata'])
    .where('space_id', '=', claims.space_id)
    .where('stream_id', '=', streamId)
    .executeTakeFirst();
  if (!row || row.event_type !== `${claims.token_kind}-token-issued`) return false;
  const { data } = fullForm({
    eventId: row.event_id,
    type: row.event_type,
    streamId,
    data: row.data,
    metadata: row.metadata as Record<string, unknown>,
  }) as { data: Record<string, unknown> };
  const expires = typeof data.expires_at === 'string' ? secondsOfIso(data.expires_at) : undefined;
  return (
    data.client_id === claims.client_id &&
    data.audience === claims.aud &&
    expires === claims.exp &&
    (data.scope ?? undefined) === (claims.scope ?? undefined) &&
    (data.cnf_jkt ?? undefined) === claims.cnf?.jkt
  );
}
