import type pg from 'pg';
import { EVENT_CATALOG, EVENT_TYPES } from '../../src/domain/events.js';
import { issuancesOf } from '../../src/domain/token/issuances.js';
import { usesOf } from '../../src/projections/usage.js';

// Which types are tokens and uses comes from the domain (the issuances, the catalog); every count
// and the SQL below are written here, apart from the projector's, so the two can disagree and be
// caught.
const list = (types: readonly string[]) => `ARRAY[${types.map((t) => `'${t}'`).join(',')}]::text[]`;
const kindOf = (kind: 'private' | 'public') => list(issuancesOf(kind));
const USES = list(usesOf(EVENT_CATALOG));
const PRIVATE = `count(*) FILTER (WHERE event_type = 'private-token-issued')`;
const PUBLIC = `count(*) FILTER (WHERE event_type = 'public-token-issued')`;
// One per failure recorded on its own, plus what each summary counted past the event budget.
const REJECTED = `count(*) FILTER (WHERE event_type = 'client-authentication-failed')
  + coalesce(sum((data->>'failed')::bigint + (data->>'refused_while_locked_out')::bigint)
      FILTER (WHERE event_type = 'client-authentication-failures-summarized'), 0)`;

/**
 * The audit and rate views recomputed straight from the events table in SQL written apart from
 * the projector's: the oracle `npm run chaos` and the tests compare the projections against.
 */
export async function recomputedAudit(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT concat_ws('|', space_id, global_position, data->>'client_id', event_type,
             CASE WHEN event_type = ANY(${kindOf('private')}) THEN 'private'
                  WHEN event_type = ANY(${kindOf('public')}) THEN 'public' END,
             data->>'customer_id', data->>'segment_id',
             -- A token issuance is stored without its id (its stream's name) and actor (its client).
             CASE WHEN data ? 'jti' THEN data->>'jti'
                  WHEN stream_id LIKE 'token-%' AND event_type LIKE '%-token-issued'
                    THEN right(stream_id, -length('token-')) END,
             data->>'parent_jti',
             CASE WHEN metadata ? 'actor' THEN metadata->>'actor'
                  ELSE concat('client:', data->>'client_id') END,
             metadata->>'client_ip') AS line
    FROM events WHERE event_type = ANY(${list(EVENT_TYPES)}) ORDER BY space_id, global_position`);
  return rows.map((row) => row.line);
}

export async function projectedAudit(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT concat_ws('|', space_id, global_position, client_id, event_type, token_kind, customer_id,
             segment_id, jti, parent_jti, actor, client_ip) AS line
    FROM audit_log ORDER BY space_id, global_position`);
  return rows.map((row) => row.line);
}

export async function recomputedRates(pool: pg.Pool, unit: 'minute' | 'hour'): Promise<string[]> {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT concat_ws('|', space_id, data->>'client_id', extract(epoch FROM date_trunc('${unit}', recorded_at AT TIME ZONE 'UTC')),
             ${PRIVATE}, ${PUBLIC}, ${REJECTED}) AS line
    FROM events
    WHERE event_type IN ('private-token-issued', 'public-token-issued',
                         'client-authentication-failed', 'client-authentication-failures-summarized')
    GROUP BY space_id, data->>'client_id', date_trunc('${unit}', recorded_at AT TIME ZONE 'UTC')
    ORDER BY 1`);
  return rows.map((row) => row.line);
}

export async function projectedRates(pool: pg.Pool, unit: 'minute' | 'hour'): Promise<string[]> {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT concat_ws('|', space_id, client_id, extract(epoch FROM bucket_start AT TIME ZONE 'UTC'),
             private_tokens, public_tokens, rejected_authentications) AS line
    FROM client_rate_${unit} ORDER BY 1`);
  return rows.map((row) => row.line);
}

export async function recomputedUsage(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT concat_ws('|', space_id, data->>'client_id', extract(epoch FROM max(recorded_at))) AS line
    FROM events WHERE event_type = ANY(${USES})
    GROUP BY space_id, data->>'client_id' ORDER BY 1`);
  return rows.map((row) => row.line);
}

export async function projectedUsage(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ line: string }>(`
    SELECT concat_ws('|', space_id, client_id, extract(epoch FROM last_used_at)) AS line
    FROM credential_usage ORDER BY 1`);
  return rows.map((row) => row.line);
}

/** Full snapshot of every projected table, for rebuild comparisons. */
export async function snapshotViews(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const snapshot: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ['audit_log', 'space_id, global_position'],
    ['client_rate_minute', 'space_id, client_id, bucket_start'],
    ['client_rate_hour', 'space_id, client_id, bucket_start'],
    ['credential_usage', 'space_id, client_id'],
  ] as const) {
    snapshot[table] = (await pool.query(`SELECT * FROM ${table} ORDER BY ${order}`)).rows;
  }
  return snapshot;
}

/**
 * Compares every view with its recomputation from the log. `ok` when they are equal; otherwise
 * which views differ and by how many rows on each side (used by `npm run chaos` and the tests).
 */
export async function compareViewsWithLog(pool: pg.Pool): Promise<{
  readonly ok: boolean;
  readonly differences: ReadonlyArray<{ view: string; missing: number; unexpected: number }>;
}> {
  const pairs = [
    ['audit_log', recomputedAudit(pool), projectedAudit(pool)],
    ['client_rate_minute', recomputedRates(pool, 'minute'), projectedRates(pool, 'minute')],
    ['client_rate_hour', recomputedRates(pool, 'hour'), projectedRates(pool, 'hour')],
    ['credential_usage', recomputedUsage(pool), projectedUsage(pool)],
  ] as const;
  const differences = [];
  for (const [view, expectedRows, actualRows] of pairs) {
    const expected = new Set(await expectedRows);
    const actual = new Set(await actualRows);
    const missing = [...expected].filter((line) => !actual.has(line)).length;
    const unexpected = [...actual].filter((line) => !expected.has(line)).length;
    if (missing + unexpected > 0) differences.push({ view, missing, unexpected });
  }
  return { ok: differences.length === 0, differences };
}
