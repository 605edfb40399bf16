import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { UnavailableError } from '../errors/errors.js';

/** Which access tokens are revoked, known in this process without a query per request. */
export interface RevocationLookup {
  /** Whether the id is revoked: from memory within `maxEntries`, else asked; fails closed (503). */
  isRevoked(jti: string): boolean | Promise<boolean>;
  /** A revocation this process just committed takes effect here at once. */
  noteRevoked(jti: string, expiresAtMs: number): void;
  /** Entries held (for /metrics). */
  size(): number;
  /** True while more revocations are unexpired than memory may hold (ids not held are queried). */
  overflowing(): boolean;
  close(): void;
}

// A revocation committed this long after its recorded time is still read (statement timeout bound).
const LOOK_BACK_MS = 30_000;

/**
 * All unexpired revocations once, then every `refreshMs` those since (with a look-back): any
 * replica's revocation holds here within about `refreshMs`. Past `maxEntries` ids not held are
 * asked of the database, so the answer stays exact with bounded memory.
 */
export async function createRevocationLookup(
  db: Kysely<Database>,
  options: {
    readonly refreshMs: number;
    readonly maxEntries: number;
    /** While overflowing, how often a full reload checks whether memory can be exact again. */
    readonly fullReloadMs?: number;
    readonly now?: () => number;
  },
): Promise<RevocationLookup> {
  const now = options.now ?? Date.now;
  const revoked = new Map<string, number>();
  let since: Date | undefined;
  let lastSuccess = 0;
  let overflow = false;
  let lastFullReload = 0;
  const fullReloadMs = options.fullReloadMs ?? 60_000;
  let refreshing: Promise<void> | undefined;
  const staleAfterMs = Math.max(5 * options.refreshMs, 5000);

  const hold = (jti: string, expiresAtMs: number) => {
    if (revoked.has(jti) || revoked.size < options.maxEntries) revoked.set(jti, expiresAtMs);
    else overflow = true;
  };

  const refresh = async () => {
    const startedAt = now();
    // Overflowed ids were skipped: only a full reload that fits can make memory exact again.
    const full = since === undefined || (overflow && startedAt - lastFullReload >= fullReloadMs);
    // The database's time, as revoked_at is: a clock ahead would skip revocations.
    const databaseNow = full
      ? (await sql<{ now: Date }>`SELECT now() AS now`.execute(db)).rows[0]!.now
      : undefined;
    const rows = await db
      .selectFrom('token_revocations')
      .select(['jti', 'expires_at', 'revoked_at'])
      .where('expires_at', '>', sql<Date>`now()`)
      .$if(!full, (query) =>
        query.where('revoked_at', '>=', new Date(since!.getTime() - LOOK_BACK_MS)),
      )
      .$if(full, (query) => query.limit(options.maxEntries + 1))
      .execute();
    if (full) {
      lastFullReload = startedAt;
      revoked.clear();
      overflow = rows.length > options.maxEntries;
    }
    for (const row of rows) {
      hold(row.jti, row.expires_at.getTime());
      if (!since || row.revoked_at > since) since = row.revoked_at;
    }
    if (full && (!since || databaseNow! > since)) since = databaseNow;
    for (const [jti, expiresAt] of revoked) if (expiresAt <= startedAt) revoked.delete(jti);
    lastSuccess = startedAt;
  };

  const inDatabase = async (jti: string) => {
    const row = await db
      .selectFrom('token_revocations')
      .select('jti')
      .where('jti', '=', jti)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
    return row !== undefined;
  };

  await refresh();
  const timer = setInterval(() => {
    refreshing ??= refresh()
      .catch(() => undefined)
      .finally(() => (refreshing = undefined));
  }, options.refreshMs);
  timer.unref();

  return {
    isRevoked(jti) {
      if (now() - lastSuccess > staleAfterMs) {
        throw new UnavailableError('the revocation list cannot be refreshed; retry shortly');
      }
      if (revoked.has(jti)) return true;
      return overflow ? inDatabase(jti) : false;
    },
    noteRevoked: hold,
    size: () => revoked.size,
    overflowing: () => overflow,
    close: () => clearInterval(timer),
  };
}
