import { randomBytes } from 'node:crypto';

/** Time, injectable so tests can pin it. Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** Identifiers, injectable so tests can pin them. */
export interface IdGenerator {
  eventId(): string;
  tokenId(): string;
}

export const systemClock: Clock = { now: () => Date.now() };

// Random bytes are drawn in bulk (as Node's randomUUID does): one call per 256 ids, not one each.
const POOL_IDS = 256;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits. Ids that grow with time
 * land at the right edge of the events table's unique indexes instead of on random pages, which
 * keeps inserts cheap for Postgres; 74 random bits keep them unguessable and unique.
 */
export function uuidv7(now = Date.now()): string {
  if (poolOffset >= pool.length) {
    pool = randomBytes(16 * POOL_IDS);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const randomIds: IdGenerator = { eventId: () => uuidv7(), tokenId: () => uuidv7() };
