import type pg from 'pg';

/**
 * Database bytes per issued token once the projector has caught up: every table, index and TOAST
 * of the schema (pg_total_relation_size), after VACUUM, over the tokens in the log. What issue 20
 * bounds: today every token is kept in full, in the log and in the views.
 */
export async function bytesPerToken(
  pool: pg.Pool,
): Promise<{ readonly bytes: number; readonly tokens: number }> {
  for (let i = 0; i < 150; i += 1) {
    const { rows } = await pool.query<{ behind: string }>(
      `SELECT (SELECT count(*) FROM events) - (SELECT COALESCE(sum(event_count), 0) FROM event_seals) AS behind`,
    );
    if (Number(rows[0]!.behind) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await pool.query('VACUUM');
  const { rows } = await pool.query<{ bytes: string; tokens: string }>(
    `SELECT (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c
               JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'm')) AS bytes,
            (SELECT count(*) FROM events
              WHERE event_type IN ('private-token-issued', 'public-token-issued')) AS tokens`,
  );
  return { bytes: Number(rows[0]!.bytes), tokens: Number(rows[0]!.tokens) };
}
