import { eventLeaves, type EventLeaves } from '#audit-log/event-leaf.js';
import { redactEvent } from './redaction.js';

/**
 * The service's leaves: the audit-log package's leaf (RFC 8785 JSON of the event, hashed as an
 * RFC 9162 leaf) over the event redacted as the event catalog says. Bound once, here, for the
 * sealer, the API and the offline checks alike.
 */
export const EVENT_LEAVES: EventLeaves = eventLeaves(redactEvent);

/** The bytes an event's leaf hashes: the event redacted, canonical. */
export const leafEntry = EVENT_LEAVES.leafEntry;

/** An event's leaf hash: SHA-256(0x00 ‖ leafEntry(event)). */
export const eventLeafHash = EVENT_LEAVES.eventLeafHash;
