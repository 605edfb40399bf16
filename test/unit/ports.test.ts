import { describe, expect, it } from 'vitest';
import { randomBase64url, uuidv7 } from '../../src/domain/ports.js';

describe('uuidv7', () => {
  it('is a version-7 RFC 9562 UUID that sorts by time and does not repeat', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => uuidv7(1_800_000_000_000 + i));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 10_000 }, () => uuidv7(1)))).toHaveProperty('size', 10_000);
    expect(uuidv7(0x0123456789ab).startsWith('01234567-89ab-7')).toBe(true);
  });

  it('draws every one of its 74 random bits', () => {
    // Same millisecond for all: only the random part may differ. Each random hex digit must take
    // all of its possible values, so no bit is stuck (the variant digit has only four).
    const ids = Array.from({ length: 4000 }, () => uuidv7(1_800_000_000_000).replaceAll('-', ''));
    for (let digit = 13; digit < 32; digit += 1) {
      const seen = new Set(ids.map((id) => id[digit]));
      expect(seen.size, `hex digit ${digit}`).toBe(digit === 16 ? 4 : 16);
    }
  });
});

describe('randomBase64url', () => {
  it("gives n fresh bytes each call, across the pool's refills, none shared with ids", () => {
    // 16-byte salts: 160 a pool, so 600 of them cross several refills, with ids drawn between.
    const ids: string[] = [];
    const salts = Array.from({ length: 600 }, (_, i) => {
      if (i % 7 === 0) ids.push(uuidv7());
      return randomBase64url(16);
    });
    const bytes = salts.map((salt) => Buffer.from(salt, 'base64url'));
    for (const salt of bytes) expect(salt).toHaveLength(16);
    expect(new Set(salts).size).toBe(600);
    // Every bit takes both values somewhere: no byte of a salt is stuck (a pool read past its end).
    for (let at = 0; at < 16; at += 1) {
      const ored = bytes.reduce((bits, b) => bits | b[at]!, 0);
      const anded = bytes.reduce((bits, b) => bits & b[at]!, 0xff);
      expect([ored, anded], `byte ${at}`).toEqual([0xff, 0]);
    }
    // An id's last 6 bytes are drawn bytes as they are: none of them is in any salt.
    const drawn = Buffer.concat(bytes).toString('hex');
    for (const id of ids) {
      const tail = id.slice(-12);
      for (let at = drawn.indexOf(tail); at !== -1; at = drawn.indexOf(tail, at + 1)) {
        expect(at % 2, `id ${id} found in a salt`).toBe(1);
      }
    }
  });

  it('refuses a count it cannot give fresh', () => {
    for (const n of [0, -1, 2561, 1.5, Number.NaN]) {
      expect(() => randomBase64url(n), String(n)).toThrow(RangeError);
    }
    expect(Buffer.from(randomBase64url(2560), 'base64url')).toHaveLength(2560);
  });
});
