import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/crypto/bounded-cache.js';

describe('BoundedCache (what a signer keeps per key)', () => {
  it('holds at most its bound, dropping the least recently used', () => {
    const cache = new BoundedCache<string, number>(3);
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      cache.set(key, value);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4]);
    for (let i = 0; i < 1000; i++) cache.set(`space-${i}`, i);
    expect(cache.size).toBe(3);
  });

  it('refuses a bound under one', () => {
    expect(() => new BoundedCache(0)).toThrow(/at least one/);
  });
});
