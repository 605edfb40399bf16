import type { KeyObject } from 'node:crypto';
import type pg from 'pg';
import { kyselyOver } from '../../src/db/database.js';
import { checkLogTreeInDatabase } from '../../src/audit-trail/prove/log-tree-evidence.js';
import { compareViewsWithLog } from './recompute.js';

/** What a reliability run's end state looks like, and whether it is what it must be. */
export interface LogVerdict {
  readonly ok: boolean;
  /** Tokens a client received whose issuance event is not in the log (must be 0). */
  readonly tokensWithoutEvent: number;
  /** Token ids recorded more than once (must be 0). */
  readonly duplicateTokenEvents: number;
  readonly views: Awaited<ReturnType<typeof compareViewsWithLog>>;
  /**
   * The log tree recomputed from the events and held to its stored signed heads (their roots, and
   * with `publicKey` their signatures).
   */
  readonly logTree: Awaited<ReturnType<typeof checkLogTreeInDatabase>>;
}

/**
 * After a run: every token a client received has its committed event, no token id is recorded
 * twice, every view equals its recomputation from the log, and the log tree recomputed from the
 * events makes the roots its signed heads hold; with `publicKey` (the audit key the projector
 * signed with), each head must also be signed by it, else a head rewritten in the database with
 * the root of rewritten events would pass.
 * Call once the projector has caught up ({@link waitForProjector}).
 */
export async function judgeLog(
  pool: pg.Pool,
  receivedJtis: readonly string[],
  options: { readonly publicKey?: KeyObject } = {},
): Promise<LogVerdict> {
  const { rows: missing } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM unnest($1::text[]) AS received(jti)
     WHERE NOT EXISTS (SELECT 1 FROM events WHERE stream_id = 'token-' || received.jti)`,
    [receivedJtis],
  );
  const { rows: duplicates } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT stream_id FROM events
        WHERE event_type IN ('private-token-issued', 'public-token-issued')
        GROUP BY 1 HAVING count(*) > 1) d`,
  );
  const views = await compareViewsWithLog(pool);
  const logTree = await checkLogTreeInDatabase(
    kyselyOver(pool),
    options.publicKey ? { publicKey: options.publicKey } : {},
  );
  const tokensWithoutEvent = missing[0]!.n;
  const duplicateTokenEvents = duplicates[0]!.n;
  return {
    ok: tokensWithoutEvent === 0 && duplicateTokenEvents === 0 && views.ok && logTree.ok,
    tokensWithoutEvent,
    duplicateTokenEvents,
    views,
    logTree,
  };
}

/**
 * Waits until every projection, the sealer's among them (its lag row is still named `chain`: the
 * events not yet sealed into the log tree), has caught up with the log; false after `ms`.
 */
export async function waitForProjector(pool: pg.Pool, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until;) {
    const { rows } = await pool
      .query<{ behind: number }>(
        'SELECT coalesce(max(events_behind), 0)::int AS behind FROM dashboard_projector_lag',
      )
      .catch(() => ({ rows: [{ behind: -1 }] }));
    if (rows[0]!.behind === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}
