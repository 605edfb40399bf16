import type pg from 'pg';

/** Waits (up to 30 s) until the sealer has caught up with the log, then VACUUMs. */
async function settle(pool: pg.Pool): Promise<void> {
  for (let i = 0; i < 150; i += 1) {
    const { rows } = await pool.query<{ behind: string }>(
      `SELECT (SELECT count(*) FROM events) - (SELECT COALESCE(sum(event_count), 0) FROM log_seals) AS behind`,
    );
    if (Number(rows[0]!.behind) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await pool.query('VACUUM');
}

/** Tokens in the live log. */
async function tokensInLog(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ tokens: string }>(
    `SELECT count(*) AS tokens FROM events
      WHERE event_type IN ('private-token-issued', 'public-token-issued')`,
  );
  return Number(rows[0]!.tokens);
}

/**
 * Database bytes per issued token once the projector has caught up: every table, index and TOAST
 * of the schema (pg_total_relation_size), after VACUUM, over the tokens in the log. What issue 20
 * bounds.
 */
export async function bytesPerToken(
  pool: pg.Pool,
): Promise<{ readonly bytes: number; readonly tokens: number }> {
  await settle(pool);
  const { rows } = await pool.query<{ bytes: string }>(
    `SELECT sum(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'm')`,
  );
  return { bytes: Number(rows[0]!.bytes), tokens: await tokensInLog(pool) };
}

/** Each table's bytes (heap and TOAST) and each index's, largest first. */
export async function storageBreakdown(
  pool: pg.Pool,
): Promise<Array<{ relation: string; kind: 'table' | 'index'; bytes: number }>> {
  await settle(pool);
  const { rows } = await pool.query<{ relation: string; kind: 'table' | 'index'; bytes: string }>(
    `SELECT c.relname AS relation, CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END AS kind,
            CASE c.relkind WHEN 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')
      ORDER BY 3 DESC`,
  );
  return rows.map((row) => ({ relation: row.relation, kind: row.kind, bytes: Number(row.bytes) }));
}
