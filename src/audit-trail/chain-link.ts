import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { RecordedEvent } from '../event-store/types.js';

/** The previous hash of the first link. */
export const GENESIS_HASH: Buffer = Buffer.alloc(32);

// The sealer folds each event into the global chain and then, redacted, into its space's; redaction
// returns the very same object when there is nothing to hide (every token event), so the bytes are
// computed once. Events are immutable values; the entry goes with the event.
const bytesOf = new WeakMap<RecordedEvent, Buffer>();

/** The exact bytes of an event that its chain link covers (RFC 8785 JSON). */
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
 * hash = SHA-256(previous hash || canonical event bytes). The one definition of a link, for the
 * global chain and (over redacted events) each space's chain.
 */
export function chainHash(previousHash: Buffer, event: RecordedEvent): Buffer {
  return createHash('sha256').update(previousHash).update(canonicalEventBytes(event)).digest();
}

/**
 * The hash after `events`, in order, starting from `previousHash`: what a seal stores for a range
 * (the link of its last event). Changing, dropping, adding or reordering any event changes it.
 */
export function foldChain(previousHash: Buffer, events: Iterable<RecordedEvent>): Buffer {
  let hash = previousHash;
  for (const event of events) hash = chainHash(hash, event);
  return hash;
}
