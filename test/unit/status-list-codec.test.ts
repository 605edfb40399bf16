import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeStatusList,
  encodeStatusList,
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
