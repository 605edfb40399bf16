import { eventLeaves, type EventLeaves } from '#audit-log/event-leaf.js';
import { redactEvent } from './redaction.js';

/** The service's leaves: the package's leaf over the redacted event. */
export const EVENT_LEAVES: EventLeaves = eventLeaves(redactEvent);

/** The bytes an event's leaf hashes: the event redacted, canonical. */
export const leafEntry = EVENT_LEAVES.leafEntry;

/** An event's leaf hash: SHA-256(0x00 ‖ leafEntry(event)). */
export const eventLeafHash = EVENT_LEAVES.eventLeafHash;
