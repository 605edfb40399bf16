import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/test-database.js';

/**
 * The path past one primary (docs/scaling.md): distributed by space_id, every per-space table must
 * carry space_id in each of its keys (Citus requires the distribution column in every primary
 * and unique key). The tables that are not per space are named here with the reason; a new table
 * must be one or the other.
 */
const GLOBAL: Readonly<Record<string, string>> = {
  schema_migrations: 'migrations applied (coordinator)',
  event_log_migrations: "the event log's own migrations applied (coordinator)",
  signing_keys:
    "the shared key ring and each space's own (space_id null for the shared one; reference table, a few rows per space)",
  projection_checkpoints: "each projection's position in the whole log (coordinator)",
  event_seals:
    'the retired service-wide hash chain over every space (one sequence by design; read only since issue 45)',
  log_seals:
    "the sealer's ranges of the whole log and the log tree's size after each (one sequence by design)",
  log_tree_sizes:
    "the log tree's size after each global seal (one sequence, like event_seals; the log tree's own nodes are rows of merkle_nodes under the tree id '')",
  event_partitioning: "the log's partition settings (coordinator)",
  event_partitions: "the log's partitions by time (coordinator)",
  credentials:
    'looked up by client_id alone at the token endpoint, before any space is known (reference table, or client ids that name their space)',
  token_revocations:
    'looked up by jti alone by every API process (reference table, bounded: purged at expiry)',
  audit_sinks:
    "where the trail is delivered: a space's sinks and the operator's, which have no space (reference table, a handful of rows)",
  audit_sink_cursors: "each sink's position in the whole log, one row per sink (coordinator)",
};

describe('distribution keys', () => {
  it('every table but the global ones carries space_id in each of its primary and unique keys', async () => {
    const database = await createTestDatabase(2);
    const { rows: tables } = await database.pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
    );
    const { rows: keys } = await database.pool.query<{
      table: string;
      key: string;
      columns: string[];
    }>(
      `SELECT c.conrelid::regclass::text AS table, c.conname AS key,
              array_agg(a.attname::text ORDER BY a.attnum) AS columns
         FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
         JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE n.nspname = 'public' AND c.contype IN ('p', 'u')
        GROUP BY 1, 2`,
    );
    const names = tables.map((table) => table.name);
    // Every global table still exists (a stale list would hide a mistake).
    expect(Object.keys(GLOBAL).filter((name) => !names.includes(name))).toEqual([]);
    const perSpace = names.filter((name) => !(name in GLOBAL));
    expect(perSpace.length).toBeGreaterThan(5);
    const withoutSpace = keys
      .filter((key) => perSpace.includes(key.table) && !key.columns.includes('space_id'))
      .map((key) => `${key.table}.${key.key} (${key.columns.join(', ')})`);
    expect(withoutSpace).toEqual([]);
    // The log has no unique key at all: it is partitioned by time, and a unique key would have to
    // include the time (a stream's versions are checked under a lock instead). Distributed by
    // space_id, it needs none. The same holds for each of its partitions.
    const { rows: partitions } = await database.pool.query<{ name: string }>(
      `SELECT partition_name AS name FROM event_partitions`,
    );
    const logTables = new Set(['events', ...partitions.map((row) => row.name)]);
    const keyless = perSpace.filter(
      (table) => !logTables.has(table) && !keys.some((key) => key.table === table),
    );
    expect(keyless).toEqual([]);
    expect(keys.filter((key) => logTables.has(key.table))).toEqual([]);
  });
});
