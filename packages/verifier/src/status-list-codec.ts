import { deflateSync, inflateSync } from 'node:zlib';

/**
 * The Token Status List's byte array (draft-ietf-oauth-status-list-20 §4): `bits` per entry (1, 2,
 * 4 or 8), entry 0 in the least significant bits of byte 0, compressed with DEFLATE in the ZLIB
 * format (RFC 1950) and base64url-encoded without padding.
 */
export type StatusBits = 1 | 2 | 4 | 8;

/** Status types (§7.1); a list this service serves holds only these two. */
export const STATUS_VALID = 0x00;
export const STATUS_INVALID = 0x01;

/** A list of `size` entries, all VALID, with `set` entries at their status. */
export function encodeStatusList(
  size: number,
  bits: StatusBits,
  set: Iterable<readonly [index: number, status: number]>,
): string {
  const bytes = new Uint8Array(Math.ceil((size * bits) / 8));
  const mask = (1 << bits) - 1;
  for (const [index, status] of set) {
    if (!Number.isInteger(index) || index < 0 || index >= size) {
      throw new RangeError(`status index ${index} outside the list of ${size}`);
    }
    const offset = index * bits;
    bytes[offset >> 3]! |= (status & mask) << (offset & 7);
  }
  return deflateSync(bytes, { level: 9 }).toString('base64url');
}

/** A decoded list: the status at an index, or undefined past its end (§8.3: rejected). */
export interface StatusList {
  readonly size: number;
  status(index: number): number | undefined;
}

/**
 * Decodes `lst`, inflating at most `maxBytes` (a list of 2^20 one-bit entries is 128 KiB): a
 * compressed bomb is refused, not expanded.
 */
export function decodeStatusList(lst: string, bits: StatusBits, maxBytes = 1 << 20): StatusList {
  if (!/^[A-Za-z0-9_-]*$/.test(lst)) throw new SyntaxError('lst is not base64url');
  const bytes = inflateSync(Buffer.from(lst, 'base64url'), { maxOutputLength: maxBytes });
  const size = (bytes.length * 8) / bits;
  const mask = (1 << bits) - 1;
  return {
    size,
    status(index) {
      if (!Number.isInteger(index) || index < 0 || index >= size) return undefined;
      const offset = index * bits;
      return (bytes[offset >> 3]! >> (offset & 7)) & mask;
    },
  };
}
