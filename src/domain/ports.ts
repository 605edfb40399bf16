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
const RANDOM_BYTES = 10; // 74 random bits use 10 bytes, less the version and variant bits
let pool = Buffer.alloc(0);
let poolOffset = 0;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
// Ids minted in the same millisecond share their time fields; the API mints two per request.
let prefixMs = -1;
let prefix = '';

/** A UUIDv7: time-ordered for cheap index inserts, 74 random bits for unguessability. */
export function uuidv7(now = Date.now()): string {
  if (poolOffset >= pool.length) {
    pool = randomBytes(RANDOM_BYTES * POOL_IDS);
    poolOffset = 0;
  }
  const b = pool;
  const o = poolOffset;
  poolOffset += RANDOM_BYTES;
  if (now !== prefixMs) {
    const time = now.toString(16).padStart(12, '0');
    prefix = `${time.slice(0, 8)}-${time.slice(8, 12)}-`;
    prefixMs = now;
  }
  return (
    `${prefix}${HEX[0x70 | (b[o]! & 0x0f)]}${HEX[b[o + 1]!]}-` +
    `${HEX[0x80 | (b[o + 2]! & 0x3f)]}${HEX[b[o + 3]!]}-` +
    `${HEX[b[o + 4]!]}${HEX[b[o + 5]!]}${HEX[b[o + 6]!]}${HEX[b[o + 7]!]}${HEX[b[o + 8]!]}${HEX[b[o + 9]!]}`
  );
}

export const randomIds: IdGenerator = { eventId: () => uuidv7(), tokenId: () => uuidv7() };
