import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { judgeLog } from '../../../tools/reliability/oracle.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { tempDir } from '../../support/after-file.js';

const newKey = async () => loadAuditSigningKey(undefined, await tempDir('oracle-key-'));

let database: TestDatabase;
let signer: Awaited<ReturnType<typeof newKey>>;
beforeAll(async () => {
  database = await createTestDatabase(4);
  for (let i = 0; i < 5; i++) {
    await appendToStream(database.db, {
      spaceId: 'space-oracle',
      stream: newStream(`oracle-${i}-${randomUUID()}`),
      events: [{ eventId: randomUUID(), type: 'test-event', data: { i }, metadata: {} }],
    });
  }
  while ((await sealLog(database.db, 3)) > 0);
  signer = await newKey();
  await signTreeHeads(database.db, (treeId, size, root) =>
    signTreeHead(signer, treeOrigin('https://issuer.test', treeId), size, root),
  );
});

describe('the reliability oracle (judgeLog)', () => {
  it("holds the log tree's signed heads to the audit key it is given", async () => {
    const signedBy = await judgeLog(database.pool, [], { publicKey: signer.publicKey });
    expect(signedBy.logTree).toMatchObject({ ok: true });
    expect(signedBy.logTree.ok && signedBy.logTree.headsChecked).toBeGreaterThan(0);

    // Heads whose roots the events make, but signed by another key: what a database owner who
    // rewrote events and re-signed the heads would leave. Only the key tells them apart.
    const other = await newKey();
    const forged = await judgeLog(database.pool, [], { publicKey: other.publicKey });
    expect(forged.ok).toBe(false);
    expect(forged.logTree).toMatchObject({ ok: false, reason: 'tree_head_forged' });
  });
});
