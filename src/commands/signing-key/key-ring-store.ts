import type { EventStore } from '#event-log/event-store.js';
import type { KeyRingWrites } from '../../projections/key-ring-writes.js';

/** The event store as the signing-key commands use it: the key ring's rows in its transactions. */
export type KeyRingStore = EventStore<{ readonly keyRing: KeyRingWrites }>;
