import { eventStoreContract } from '../support/event-store-contract.js';
import { createInMemoryEventStore } from '../support/in-memory-store.js';

eventStoreContract('in memory', () => {
  const memory = createInMemoryEventStore();
  return {
    store: memory.store,
    streamPositions: async (streamId) =>
      memory.log
        .filter((event) => event.streamId === streamId)
        .map((event) => event.streamPosition),
  };
});
