import type pg from 'pg';

/** Where Postgres's WAL insert position is now, as an LSN and in bytes from the start. */
export async function walPosition(pool: pg.Pool): Promise<{ lsn: string; bytes: number }> {
  const { rows } = await pool.query<{ lsn: string; b: string }>(
    `SELECT pg_current_wal_insert_lsn()::text AS lsn, pg_current_wal_insert_lsn() - '0/0' AS b`,
  );
  return { lsn: rows[0]!.lsn, bytes: Number(rows[0]!.b) };
}

/** The WAL between two positions, in bytes per request, largest first (pg_walinspect). */
export interface WalItems {
  /** Each relation's block data and full-page images (another database's: its file number). */
  readonly relations: ReadonlyArray<readonly [string, number]>;
  /** Whole records (headers, block data and images) by resource manager: Heap, Btree, Transaction... */
  readonly managers: ReadonlyArray<readonly [string, number]>;
}

/** {@link WalItems} between `from` and `to`; empty where the server has no pg_walinspect. */
export async function walItems(
  pool: pg.Pool,
  from: string,
  to: string,
  requests: number,
): Promise<WalItems> {
  const per = (rows: Array<{ item: string; bytes: string }>) =>
    rows.map((row) => [row.item, Number(row.bytes) / Math.max(1, requests)] as const);
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const relations = await pool.query<{ item: string; bytes: string }>(
      `SELECT coalesce(pg_filenode_relation(reltablespace, relfilenode)::text,
                       'file ' || relfilenode) AS item,
              sum(block_data_length + block_fpi_length)::text AS bytes
       FROM pg_get_wal_block_info($1::pg_lsn, $2::pg_lsn) GROUP BY 1 ORDER BY sum(block_data_length + block_fpi_length) DESC LIMIT 8`,
      [from, to],
    );
    const managers = await pool.query<{ item: string; bytes: string }>(
      `SELECT "resource_manager/record_type" AS item, combined_size::text AS bytes
       FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, false) WHERE combined_size > 0
       ORDER BY combined_size DESC LIMIT 6`,
      [from, to],
    );
    return { relations: per(relations.rows), managers: per(managers.rows) };
  } catch {
    return { relations: [], managers: [] };
  }
}
