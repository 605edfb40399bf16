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

// Random bytes are drawn in bulk (as Node's randomUUID does): one call per 2,560 bytes, not one per
// id or salt. A pool is replaced when spent, never rewritten, so bytes read from it stay as drawn.
const POOL_BYTES = 2560;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** Where `n` fresh random bytes start in `pool`. */
function draw(n: number): number {
  // A bad count would hand out bytes again (negative), clip (too many) or stick at NaN for good.
  if (!Number.isInteger(n) || n < 1 || n > POOL_BYTES) {
    throw new RangeError(`random bytes: ${n} is not a count from 1 to ${POOL_BYTES}`);
  }
  if (poolOffset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += n;
  return at;
}

/** `n` (at most 2,560) random bytes as base64url: a salt, from the pool. */
export function randomBase64url(n: number): string {
  const at = draw(n);
  return pool.toString('base64url', at, at + n);
}

const RANDOM_BYTES = 10; // 74 random bits use 10 bytes, less the version and variant bits
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
// Ids minted in the same millisecond share their time fields; the API mints two per request.
let prefixMs = -1;
let prefix = '';

/** A UUIDv7: time-ordered for cheap index inserts, 74 random bits for unguessability. */
export function uuidv7(now = Date.now()): string {
  const o = draw(RANDOM_BYTES);
  const b = pool;
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
