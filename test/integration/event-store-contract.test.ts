import { beforeAll } from 'vitest';
import { createEventStore } from '../../src/event-store/event-store.js';
import { postgresInlineWrites } from '../../src/projections/inline-writes.js';
import { eventStoreContract } from '../support/event-store-contract.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';

// The event store port's contract on Postgres; test/unit/in-memory-store.test.ts runs the same
// on the in-memory store the handler unit tests use.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(12);
});

eventStoreContract('Postgres', () => ({
  store: createEventStore(database.db, { writes: postgresInlineWrites, listeners: [] }),
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
