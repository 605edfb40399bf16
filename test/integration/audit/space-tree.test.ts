import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { overSpaceTree, spaceLeaves } from '../../../src/audit-trail/seal/space-tree.js';
import { eventLeafHash } from '../../../src/audit-trail/event-leaf.js';
import {
  LOG_TREE,
  logLeafIndex,
  logTreeSize,
  overLogTree,
} from '../../../src/audit-trail/seal/log-tree.js';
import { readLog } from '#event-log/read-log.js';
import { LOG_START } from '#event-log/types.js';
import {
  consistencyProof,
  inclusionProof,
  memoryTree,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from '#audit-log/transparency/merkle.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(4);
});

async function record(spaceId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, (_, j) =>
        appendToStream(database.db, {
          spaceId,
          stream: newStream(`tree-${randomUUID()}`),
          events: [{ eventId: randomUUID(), type: 'test-event', data: { n: i + j }, metadata: {} }],
        }),
      ),
    );
  }
}

const seal = async () => {
  while ((await sealLog(database.db, 97)) > 0);
};

describe("each space's Merkle tree, grown by the sealer", () => {
  it('keeps the root of the RFC 9162 tree over the space events, with a stored node per 128 events, and proves every event', async () => {
    const space = `tree-${randomUUID()}`;
    const other = `other-${randomUUID()}`;
    await record(space, 300);
    await record(other, 40);
    await seal();
    await record(space, 345);
    await seal();
    const size = 645;
    const leaves = await spaceLeaves(database.db, space, 1, size);
    expect(leaves).toHaveLength(size);
    const reference = memoryTree(leaves);
    const root = await overSpaceTree(database.db, space, size, (tree) => treeRoot(tree, size));
    expect(root).toEqual(treeRoot(reference, size));
    // Levels 8 and 9 only: 2 + 1 nodes of 256 and 512 leaves.
    const nodes = await database.db
      .selectFrom('merkle_nodes')
      .select(['level', 'index'])
      .where('space_id', '=', space)
      .orderBy('level')
      .orderBy('index')
      .execute();
    expect(nodes.map((node) => `${node.level}/${node.index}`)).toEqual(['8/0', '8/1', '9/0']);
    for (const index of [0, 255, 256, 300, 511, 512, 644]) {
      const proof = await overSpaceTree(database.db, space, size, (tree) =>
        inclusionProof(tree, index, size),
      );
      expect(proof).toEqual(inclusionProof(reference, index, size));
      expect(verifyInclusion(leaves[index]!, index, size, proof, root)).toBe(true);
    }
    const older = treeRoot(reference, 300);
    const consistency = await overSpaceTree(database.db, space, size, (tree) =>
      consistencyProof(tree, 300, size),
    );
    expect(verifyConsistency(300, size, consistency, older, root)).toBe(true);
  }, 60_000);
});

describe('the log tree over every space', () => {
  it("holds every sealed event in commit order, each with its space tree's leaf, and proves each one", async () => {
    await record(`log-${randomUUID()}`, 130);
    await record(`log-${randomUUID()}`, 200);
    await seal();
    const events = (await readLog(database.db, { after: LOG_START, limit: 100_000 })).events;
    const size = await logTreeSize(database.db);
    expect(size).toBe(events.length);
    expect(size).toBeGreaterThan(512);
    const reference = memoryTree(events.map((event) => eventLeafHash(event)));
    const root = await overLogTree(database.db, size, (tree) => treeRoot(tree, size));
    expect(root).toEqual(treeRoot(reference, size));
    const stored = await database.db
      .selectFrom('merkle_nodes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('space_id', '=', LOG_TREE)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBeGreaterThanOrEqual(Math.floor(size / 256));
    // Tiles that span several seals (of 97 events): the index of each event, and its proof.
    for (const index of [0, 96, 97, 255, 256, 400, size - 1]) {
      expect(await logLeafIndex(database.db, events[index]!)).toBe(index);
      const proof = await overLogTree(database.db, size, (tree) =>
        inclusionProof(tree, index, size),
      );
      expect(verifyInclusion(eventLeafHash(events[index]!), index, size, proof, root)).toBe(true);
    }
    const consistency = await overLogTree(database.db, size, (tree) =>
      consistencyProof(tree, 200, size),
    );
    expect(verifyConsistency(200, size, consistency, treeRoot(reference, 200), root)).toBe(true);
  }, 60_000);
});
