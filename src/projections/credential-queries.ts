import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { SYSTEM_SPACE } from '../domain/streams.js';

/** A credential as the API shows it: never a secret or its hash. */
export interface CredentialRecord {
  readonly client_id: string;
  readonly name: string;
  readonly description: string;
  readonly space_id: string;
  readonly status: 'active' | 'revoked';
  readonly created_at: string;
  readonly last_updated: string;
  /** From the projector: when the client last got a token; null if never. */
  readonly last_used_at: string | null;
  /** This client's own budget per minute; null: CLIENT_RATE_LIMIT_PER_MINUTE. */
  readonly rate_limit_per_minute: number | null;
  /** The scopes its tokens may carry; null: recorded before scopes (the catalog's defaults). */
  readonly scopes: readonly string[] | null;
  /** Where /authorize may send its browser back; only for a code-flow client. */
  readonly redirect_uris?: readonly string[];
  /** Only while a rotation overlap runs. */
  readonly previous_secret_expires_at?: string;
  readonly revoked_at?: string;
}

/** Where a page of credentials resumes: after this creation time and client id. */
export interface CredentialCursor {
  readonly createdAt: string;
  readonly clientId: string;
}

function credentialsOf(db: Kysely<Database>, spaceId: string) {
  return db
    .selectFrom('credentials as c')
    .leftJoin('credential_usage as u', (join) =>
      join.onRef('u.space_id', '=', 'c.space_id').onRef('u.client_id', '=', 'c.client_id'),
    )
    .select([
      'c.client_id',
      'c.name',
      'c.description',
      'c.space_id',
      'c.status',
      'c.created_at',
      'c.updated_at',
      'c.previous_secret_expires_at',
      'c.revoked_at',
      'c.rate_limit_per_minute',
      'c.scopes',
      'c.redirect_uris',
      'u.last_used_at',
    ])
    .where('c.space_id', '=', spaceId);
}

type Row = Awaited<ReturnType<ReturnType<typeof credentialsOf>['execute']>>[number];

function toRecord(row: Row, nowMs: number): CredentialRecord {
  const overlapEnds = row.previous_secret_expires_at;
  return {
    client_id: row.client_id,
    name: row.name,
    description: row.description,
    space_id: row.space_id,
    status: row.status,
    created_at: row.created_at.toISOString(),
    last_updated: row.updated_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    rate_limit_per_minute: row.rate_limit_per_minute,
    scopes: row.scopes,
    ...(row.redirect_uris ? { redirect_uris: row.redirect_uris } : {}),
    ...(overlapEnds && overlapEnds.getTime() > nowMs
      ? { previous_secret_expires_at: overlapEnds.toISOString() }
      : {}),
    ...(row.revoked_at ? { revoked_at: row.revoked_at.toISOString() } : {}),
  };
}

/** One credential of a space, or undefined (also when it exists in another space). */
export async function getCredential(
  db: Kysely<Database>,
  spaceId: string,
  clientId: string,
  nowMs = Date.now(),
): Promise<CredentialRecord | undefined> {
  const row = await credentialsOf(db, spaceId)
    .where('c.client_id', '=', clientId)
    .executeTakeFirst();
  return row ? toRecord(row, nowMs) : undefined;
}

/** A page of a space's credentials in creation order, optionally only active or revoked ones. */
export async function listCredentials(
  db: Kysely<Database>,
  filter: {
    readonly spaceId: string;
    readonly status?: 'active' | 'revoked';
    readonly after?: CredentialCursor;
    readonly limit: number;
  },
  nowMs = Date.now(),
): Promise<{ readonly items: CredentialRecord[]; readonly next?: CredentialCursor }> {
  let query = credentialsOf(db, filter.spaceId);
  if (filter.status) query = query.where('c.status', '=', filter.status);
  if (filter.after) {
    const { createdAt, clientId } = filter.after;
    query = query.where(
      sql<boolean>`(c.created_at, c.client_id) > (${createdAt}::timestamptz, ${clientId})`,
    );
  }
  const rows = await query
    .orderBy('c.created_at')
    .orderBy('c.client_id')
    .limit(filter.limit + 1)
    .execute();
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => toRecord(row, nowMs)),
    ...(rows.length > filter.limit && last
      ? { next: { createdAt: last.created_at.toISOString(), clientId: last.client_id } }
      : {}),
  };
}

/**
 * Every revocation of `spaceId` whose tokens may still be live (derived ones as projected): what
 * offline verifiers must reject, its shape the route's (openapi/responses.ts revocationList).
 */
export async function revocationList(
  db: Kysely<Database>,
  spaceId: string,
  /** How long a revoked client stays listed (rotation-settings.revokedClientListedSeconds). */
  listedSeconds: number,
  /** How long a withdrawn key stays listed: at least as long as a verifier may hold a JWKS. */
  withdrawalSeconds: number,
) {
  const since = sql<Date>`now() - make_interval(secs => ${listedSeconds})`;
  const clients = await db
    .selectFrom('credentials')
    .select(['client_id', 'revoked_at'])
    .where('space_id', '=', spaceId)
    .where('status', '=', 'revoked')
    .where('revoked_at', '>', since)
    .orderBy('revoked_at')
    .execute();
  // Removed, or changed (its scopes perhaps narrowed) since: either reaches its clients' tokens.
  const domains = await db
    .selectFrom('metadata_client_domains')
    .select(['domain', 'scopes', 'removed_at', 'updated_at'])
    .where('space_id', '=', spaceId)
    .where('updated_at', '>', since)
    .orderBy('updated_at')
    .orderBy('domain')
    .execute();
  const narrowed = await db
    .selectFrom('credentials')
    .select(['client_id', 'scopes', 'scopes_narrowed_at'])
    .where('space_id', '=', spaceId)
    .where('status', '=', 'active')
    .where('scopes_narrowed_at', '>', since)
    .orderBy('scopes_narrowed_at')
    .orderBy('client_id')
    .execute();
  const { rows: tokens } = await sql<{ jti: string; exp: number }>`
    SELECT r.jti, extract(epoch FROM r.expires_at)::bigint AS exp
    FROM token_revocations r
    WHERE r.space_id = ${spaceId} AND r.expires_at > now()
    UNION
    SELECT a.jti, extract(epoch FROM a.expires_at)::bigint
    FROM token_revocations r
    JOIN audit_log a ON hashtext(a.parent_jti) = hashtext(r.jti) AND a.parent_jti = r.jti
      AND a.space_id = r.space_id
      AND a.event_type = 'public-token-issued'
    WHERE r.space_id = ${spaceId} AND r.token_kind = 'private' AND a.expires_at > now()
    ORDER BY 2, 1`.execute(db);
  // Retirements (migration 038's index): in the space's log for its ring, the system's for shared.
  const { rows: withdrawn } = await sql<{ kid: string; withdrawn_at: Date }>`
    SELECT e.data->>'kid' AS kid, e.recorded_at AS withdrawn_at
    FROM events e
    WHERE e.event_type = 'signing-key-retired' AND e.space_id IN (${spaceId}, ${SYSTEM_SPACE})
      AND e.recorded_at > now() - make_interval(secs => ${withdrawalSeconds})
      AND e.data->>'reason' = 'compromised'
    UNION
    -- Its switch-over ended: for this space the shared ring is withdrawn, as a kit must see it.
    SELECT k.kid, o.ended_at FROM ended_switch_overs o JOIN signing_keys k ON k.space_id IS NULL
    WHERE o.space_id = ${spaceId}
      AND (k.retired_at IS NULL OR k.retired_at > now() - make_interval(secs => ${withdrawalSeconds}))
    ORDER BY 2, 1`.execute(db);
  return {
    clients: clients.map((row) => ({
      client_id: row.client_id,
      revoked_at: row.revoked_at!.toISOString(),
    })),
    tokens: tokens.map((row) => ({ jti: row.jti, exp: Number(row.exp) })),
    narrowed_clients: narrowed.map((row) => ({
      client_id: row.client_id,
      scopes: row.scopes ?? [],
      narrowed_at: row.scopes_narrowed_at!.toISOString(),
    })),
    withdrawn_keys: withdrawn.map((row) => ({
      kid: row.kid,
      withdrawn_at: new Date(row.withdrawn_at).toISOString(),
    })),
    removed_client_domains: domains
      .filter((row) => row.removed_at)
      .map((row) => ({ domain: row.domain, removed_at: row.removed_at!.toISOString() })),
    // A domain allowing every scope of the catalog (null) narrows nothing a kit could check.
    narrowed_client_domains: domains
      .filter((row) => !row.removed_at && Array.isArray(row.scopes))
      .map((row) => ({
        domain: row.domain,
        scopes: row.scopes as string[],
        changed_at: row.updated_at.toISOString(),
      })),
  };
}
