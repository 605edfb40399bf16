import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../recorded-event.js';
import { canonicalEventBytes } from '../event-leaf.js';

/**
 * The retired hash chains (issue 45), as exports of format 1 still carry them: checked offline,
 * never written any more.
 */

/** The previous hash of the first link. */
export const GENESIS_HASH: Buffer = Buffer.alloc(32);

/**
 * hash = SHA-256(previous hash || canonical event bytes). The one definition of a link, for the
 * global chain and (over redacted events) each space's chain.
 */
export function chainHash(previousHash: Buffer, event: RecordedEvent): Buffer {
  return createHash('sha256').update(previousHash).update(canonicalEventBytes(event)).digest();
}
