import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, type EventStore } from '#event-log/event-store.js';
import { postgresInlineWrites, type InlineWrites } from '../../../src/projections/inline-writes.js';
import { rotateDueSigningKeys } from '../../../src/commands/signing-key/scheduled-rotation.js';
import {
  enableSpaceKeys,
  ensureFirstSigningKey,
} from '../../../src/commands/signing-key/change-keys.js';
import { SERVICE_ACTOR } from '../../../src/commands/signing-key/actor.js';
import { randomBytes } from 'node:crypto';
import { keyEncryptionKey } from '../../../src/crypto/key-encryption.js';
import { connect } from '../../../src/db/database.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

/**
 * Issue 42, item 3: the rotation on a schedule, with a fake clock and two replicas (two event
 * stores, each on its own pool, asking together and again after a "restart"): each due ring is
 * rotated exactly once — its successor published SIGNING_KEY_PUBLISH_AHEAD before it signs, the
 * key it replaces kept until the last token it signed expired.
 */
const SPACE = 'space-scheduled';
const policy = { signingLifetimeSeconds: 3600, publishAheadSeconds: 600, retireAfterSeconds: 900 };
const settings = { shared: policy, spaces: policy };
let database: TestDatabase;
let replicas: EventStore<InlineWrites>[];
let closeSecond: () => Promise<void>;
const kek = keyEncryptionKey(randomBytes(32));
let startedAt: number;

beforeAll(async () => {
  database = await createTestDatabase(5);
  const second = connect({
    url: database.url,
    poolSize: 5,
    applicationName: 'second-replica',
    idleInTransactionTimeoutMs: 0,
  });
  closeSecond = () => second.close();
  replicas = [database, second].map((handle) =>
    createEventStore(handle.db, { writes: postgresInlineWrites, listeners: [] }),
  );
  // Whole seconds, as the key events' times are.
  startedAt = Math.ceil(Date.now() / 1000) * 1000 + 1000;
  await ensureFirstSigningKey(replicas[0]!, kek);
  await enableSpaceKeys(replicas[0]!, SPACE, SERVICE_ACTOR, kek);
});
afterAll(async () => closeSecond());

const ringRows = async () =>
  (
    await database.pool.query<{
      kid: string;
      space_id: string | null;
      activates_at: Date;
      retired_at: Date | null;
    }>('SELECT kid, space_id, activates_at, retired_at FROM signing_keys ORDER BY activates_at')
  ).rows;
const rotationEvents = async () =>
  (
    await database.pool.query<{ space_id: string }>(
      `SELECT space_id FROM events WHERE event_type = 'signing-key-generated'
         AND data->>'reason' = 'rotation'`,
    )
  ).rows.map((row) => row.space_id);
const bothReplicas = (now: number) =>
  Promise.all(replicas.map((events) => rotateDueSigningKeys(events, kek, settings, now)));

describe('scheduled signing-key rotation', () => {
  it('rotates nothing before the key is due', async () => {
    expect(await bothReplicas(startedAt + 1000_000)).toEqual([[], []]);
    expect(await rotationEvents()).toEqual([]);
  });

  it('rotates each due ring once across two replicas and a restart', async () => {
    const due = startedAt + 3001_000; // past lifetime less publication margin
    const rotated = await bothReplicas(due);
    // Together the replicas rotated each ring once (which replica did which does not matter).
    expect(rotated.flat().map(String).sort()).toEqual(['null', SPACE].sort());
    // A restart asking again, and a later look while the successor waits, rotate nothing.
    expect(await rotateDueSigningKeys(replicas[1]!, kek, settings, due)).toEqual([]);
    expect(await bothReplicas(due + 300_000)).toEqual([[], []]);
    expect((await rotationEvents()).sort()).toHaveLength(2);

    const rows = await ringRows();
    for (const ring of [null, SPACE]) {
      const keys = rows.filter((row) => row.space_id === ring);
      expect(keys).toHaveLength(2);
      const [old, successor] = keys as [(typeof keys)[0], (typeof keys)[0]];
      // Published now, signing a publication margin later; the old key kept past its last token.
      expect(successor.activates_at.getTime()).toBe(due + 600_000);
      expect(successor.retired_at).toBeNull();
      expect(old.retired_at!.getTime()).toBe(successor.activates_at.getTime() + 900_000);
    }
  });

  it("rotates again once the successor's own lifetime is due", async () => {
    const rows = await ringRows();
    const newest = Math.max(...rows.map((row) => row.activates_at.getTime()));
    expect((await bothReplicas(newest + 3001_000)).flat()).toHaveLength(2);
    expect(await rotationEvents()).toHaveLength(4);
  });
});
