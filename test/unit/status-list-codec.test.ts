import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { StatusList as OutsideStatusList } from '@sd-jwt/jwt-status-list';
import { describe, expect, it } from 'vitest';
import {
  decodeStatusList,
  encodeStatusList,
  type StatusBits,
} from '../../packages/verifier/src/status-list-codec.js';

const bytesOf = (lst: string) => [...inflateSync(Buffer.from(lst, 'base64url'))];
const entries = (statuses: readonly number[]) => statuses.map((s, i) => [i, s] as const);

describe('the Token Status List byte array (draft-ietf-oauth-status-list-20 §4.1)', () => {
  it("packs one-bit entries from each byte's least significant bit, as the spec's example", () => {
    const statuses = [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1];
    expect(bytesOf(encodeStatusList(16, 1, entries(statuses)))).toEqual([0xb9, 0xa3]);
  });

  it("packs two-bit entries as the spec's example", () => {
    const statuses = [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3];
    expect(bytesOf(encodeStatusList(12, 2, entries(statuses)))).toEqual([0xc9, 0x44, 0xf9]);
  });

  it('decodes what it encodes, and answers nothing past the end', () => {
    const list = decodeStatusList(encodeStatusList(1 << 20, 1, [[734_201, 1]]), 1);
    expect(list.size).toBe(1 << 20);
    expect(list.status(734_201)).toBe(1);
    expect(list.status(734_200)).toBe(0);
    expect(list.status(1 << 20)).toBeUndefined();
  });

  it('refuses a list that inflates past its bound (a compressed bomb)', () => {
    const bomb = encodeStatusList(1 << 24, 1, []);
    expect(() => decodeStatusList(bomb, 1)).toThrow();
  });
});

/**
 * The draft's own vectors (appendix "Test vectors for Status List encoding"), copied from
 * github.com/oauth-wg/draft-ietf-oauth-status-list at tag draft-ietf-oauth-status-list-20
 * (2fb61cd5): the statuses from draft-ietf-oauth-status-list.md, each `lst` from
 * examples/status_list_encoding{1_long,2_long,4,8}_json.md with its line breaks removed.
 */
interface Vector {
  bits: StatusBits;
  size: number;
  statuses: [index: number, status: number][];
  lst: string;
}
const { vectors } = JSON.parse(
  readFileSync(new URL('fixtures/status-list-vectors.json', import.meta.url), 'utf8'),
) as { vectors: Vector[] };

describe('the draft\'s test vectors (draft-ietf-oauth-status-list-20, appendix "Test vectors")', () => {
  it('has one vector of 2^20 entries for each of 1, 2, 4 and 8 bits', () => {
    expect(vectors.map((v) => [v.bits, v.size])).toEqual([1, 2, 4, 8].map((b) => [b, 1 << 20]));
  });

  it.each(vectors.map((v) => [v.bits, v] as const))('%i-bit list', (bits, vector) => {
    const listed = new Map(vector.statuses);
    expect(listed.size, 'an index listed twice').toBe(vector.statuses.length);

    // 1. Our decoder reads every listed status, the size, and 0 everywhere else.
    const decoded = decodeStatusList(vector.lst, bits);
    expect(decoded.size).toBe(vector.size);
    for (const [index, status] of listed) expect(decoded.status(index), `[${index}]`).toBe(status);
    const unlisted = [1, 2, 1992, 1994, 500_000, vector.size - 1].filter((i) => !listed.has(i));
    expect(unlisted.map((i) => decoded.status(i))).toEqual(unlisted.map(() => 0));
    let nonZero = 0;
    for (let i = 0; i < decoded.size; i += 1) {
      if (decoded.status(i) !== 0 && !listed.has(i)) nonZero += 1;
    }
    expect(nonZero, 'unlisted entries that are not 0').toBe(0);
    expect(decoded.status(vector.size)).toBeUndefined();

    // 2. Our encoder inflates to the vector's very bytes (its DEFLATE stream may differ).
    const ours = encodeStatusList(vector.size, bits, vector.statuses);
    expect(
      inflateSync(Buffer.from(ours, 'base64url')).equals(
        inflateSync(Buffer.from(vector.lst, 'base64url')),
      ),
    ).toBe(true);

    // 3. An outside implementation (@sd-jwt/jwt-status-list) reads both lists alike.
    for (const lst of [vector.lst, ours]) {
      const outside = OutsideStatusList.decompressStatusList(lst, bits);
      for (const [index, status] of listed)
        expect(outside.getStatus(index), `[${index}]`).toBe(status);
      expect(unlisted.map((i) => outside.getStatus(i))).toEqual(unlisted.map(() => 0));
    }
  });
});
