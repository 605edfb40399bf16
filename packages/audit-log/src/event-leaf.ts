import { leafHash, type Hash } from './transparency/merkle.js';
import { canonicalJson } from './canonical-json.js';
import type { RecordedEvent } from './recorded-event.js';
import type { Redaction } from './redaction.js';

/**
 * An event's leaf in the audit trail's Merkle trees, defined once for every side: the sealer that
 * grows the trees, the API that proves and exports, the reviewer's offline checks. The entry is
 * the event redacted (a secret hash becomes its digest) in RFC 8785 JSON; the leaf hash is RFC
 * 9162's over it. The same leaf stands in a space's tree and in the log tree.
 */
export interface EventLeaves {
  /** The bytes an event's leaf hashes: the event redacted, canonical. */
  readonly leafEntry: (event: RecordedEvent) => Buffer;
  /** An event's leaf hash: SHA-256(0x00 ‖ leafEntry(event)). */
  readonly eventLeafHash: (event: RecordedEvent) => Hash;
}

// Redaction returns the very same object when there is nothing to hide (every token event), so
// the bytes are computed once per event however many trees or checks ask. Events are immutable
// values; the entry goes with the event.
const bytesOf = new WeakMap<RecordedEvent, Buffer>();

/** The exact bytes of an event as recorded (RFC 8785 JSON), before any redaction. */
export function canonicalEventBytes(event: RecordedEvent): Buffer {
  let bytes = bytesOf.get(event);
  if (bytes === undefined) {
    bytes = encode(event);
    bytesOf.set(event, bytes);
  }
  return bytes;
}

function encode(event: RecordedEvent): Buffer {
  return Buffer.from(
    canonicalJson({
      global_position: event.globalPosition,
      transaction_id: event.transactionId,
      space_id: event.spaceId,
      stream_id: event.streamId,
      stream_position: event.streamPosition,
      event_id: event.eventId,
      event_type: event.type,
      schema_version: event.schemaVersion,
      data: event.data,
      metadata: event.metadata,
      recorded_at: event.recordedAt.toISOString(),
    }),
    'utf8',
  );
}

/**
 * The leaves of a log that redacts as `redact` says. Redaction must be idempotent, so an event
 * read back from an export (already redacted) gives the same entry as the stored one.
 */
export function eventLeaves(redact: Redaction): EventLeaves {
  const leafEntry = (event: RecordedEvent): Buffer => canonicalEventBytes(redact(event));
  return { leafEntry, eventLeafHash: (event) => leafHash(leafEntry(event)) };
}
