import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { UnavailableError } from '../errors/errors.js';

/** Which access tokens are revoked, known in this process without a query per request. */
export interface RevocationLookup {
  /** True when the token id is revoked. Fails closed (503) if the list could not be refreshed. */
  isRevoked(jti: string): boolean;
  /** A revocation this process just committed takes effect here at once. */
  noteRevoked(jti: string, expiresAtMs: number): void;
  /** Entries held (for /metrics). */
  size(): number;
  close(): void;
}

// A revocation committed up to this long after its recorded time is still picked up: the
// incremental read looks back this far (a writing transaction is bounded by the statement timeout).
const LOOK_BACK_MS = 30_000;

/**
 * Loads every unexpired revocation once, then every `refreshMs` only those recorded since the last
 * read (with a look-back), so a revocation made on any replica takes effect here within about
 * `refreshMs`. Expired entries are dropped; a token past its expiry is refused anyway.
 */
export async function createRevocationLookup(
  db: Kysely<Database>,
  options: { readonly refreshMs: number; readonly now?: () => number },
): Promise<RevocationLookup> {
  const now = options.now ?? Date.now;
  const revoked = new Map<string, number>();
  let since: Date | undefined;
  let lastSuccess = 0;
  let refreshing: Promise<void> | undefined;
  const staleAfterMs = Math.max(5 * options.refreshMs, 5000);

  const refresh = async () => {
    const startedAt = now();
    // The cursor is the database's time, as revoked_at is: a replica whose clock runs ahead of the
    // database's would otherwise start past revocations it never read.
    const databaseNow =
      since === undefined
        ? (await sql<{ now: Date }>`SELECT now() AS now`.execute(db)).rows[0]!.now
        : undefined;
    const rows = await db
      .selectFrom('token_revocations')
      .select(['jti', 'expires_at', 'revoked_at'])
      .where('expires_at', '>', sql<Date>`now()`)
      .$if(since !== undefined, (query) =>
        query.where('revoked_at', '>=', new Date(since!.getTime() - LOOK_BACK_MS)),
      )
      .execute();
    for (const row of rows) {
      revoked.set(row.jti, row.expires_at.getTime());
      if (!since || row.revoked_at > since) since = row.revoked_at;
    }
    since ??= databaseNow;
    for (const [jti, expiresAt] of revoked) if (expiresAt <= startedAt) revoked.delete(jti);
    lastSuccess = startedAt;
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
      return revoked.has(jti);
    },
    noteRevoked: (jti, expiresAtMs) => void revoked.set(jti, expiresAtMs),
    size: () => revoked.size,
    close: () => clearInterval(timer),
  };
}
