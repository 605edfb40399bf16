import { beforeAll } from 'vitest';
import { createEventStore } from '#event-log/event-store.js';
import { createFairQueue } from '#rate-limit/fair-queue.js';
import { postgresInlineWrites } from '../../../src/projections/inline-writes.js';
import { eventStoreContract } from '../../support/event-store-contract.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

// The event store port's contract on Postgres; test/unit/in-memory-store.test.ts runs the same
// on the in-memory store the handler unit tests use.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(12);
});

eventStoreContract('Postgres', () => ({
  // Group-committed as the service's store is, in its fair queue.
  store: createEventStore(database.db, {
    writes: postgresInlineWrites,
    listeners: [],
    batching: {
      queue: (expired) => createFairQueue({ maxQueued: 10_000, maxWaitMs: 5_000, expired }),
    },
  }),
  streamPositions: async (streamId) =>
    (
      await database.db
        .selectFrom('events')
        .select('stream_position')
        .where('stream_id', '=', streamId)
        .orderBy('stream_position')
        .execute()
    ).map((row) => Number(row.stream_position)),
}));
