import { hostname, userInfo } from 'node:os';
import type { KeyActor } from '../commands/signing-key/actor.js';
import type { DatabaseHandle } from '../db/database.js';
import { createEventStore, type EventStore } from '#event-log/event-store.js';
import { createAppendNotifier } from '#event-log/notify.js';
import { postgresInlineWrites, type InlineWrites } from '../projections/inline-writes.js';

/** Who runs a command-line change, as recorded in its events: the OS user on this host. */
export function operatorActor(): KeyActor {
  return { actor: `operator:${userInfo().username}`, origin: `cli@${hostname()}` };
}

/**
 * The event store as an operator's command appends through it: the same path as the API's, so
 * its events wake the projector like any other. Close it before exiting (a NOTIFY may be due).
 */
export function operatorEventStore(database: DatabaseHandle): {
  readonly events: EventStore<InlineWrites>;
  close(): Promise<void>;
} {
  const notifier = createAppendNotifier(database.pool);
  return {
    events: createEventStore(database.db, {
      writes: postgresInlineWrites,
      listeners: [() => notifier.appended()],
    }),
    close: () => notifier.close(),
  };
}
