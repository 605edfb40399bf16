import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Hash } from '#audit-log/transparency/merkle.js';
import { nodeKey, type NodeStore } from '#audit-log/tree/tiled-tree.js';

// What the API answers when a tree's leaves are archived away (the package's).
export { TreeLeavesMissing } from '#audit-log/tree/tree-source.js';

/** The Merkle trees' nodes in merkle_nodes: the audit-log package's NodeStore. */
export function treeNodes(db: Kysely<Database>): NodeStore {
  return {
    async nodes(treeId, wanted) {
      if (wanted.length === 0) return new Map();
      // One index probe per node asked for (a LATERAL lookup), never a scan of the tree's nodes.
      const { rows } = await sql<{ level: number; index: string; hash: Hash }>`
        SELECT w.level, w.index, m.hash
        FROM unnest(${wanted.map((w) => w.level)}::smallint[], ${wanted.map((w) => w.index)}::bigint[])
          AS w(level, index)
        CROSS JOIN LATERAL (
          SELECT hash FROM merkle_nodes n
          WHERE n.space_id = ${treeId} AND n.level = w.level AND n.index = w.index
        ) m`.execute(db);
      return new Map(rows.map((row) => [nodeKey({ ...row, index: Number(row.index) }), row.hash]));
    },
    async store(treeId, nodes) {
      if (nodes.length === 0) return;
      await db
        .insertInto('merkle_nodes')
        .values(nodes.map((node) => ({ space_id: treeId, ...node })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    },
  };
}
