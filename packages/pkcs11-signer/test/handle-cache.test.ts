import { describe, expect, it } from 'vitest';
import { HandleCache } from '../src/handle-cache.js';

const handle = (n: number) => Buffer.from([n]);

describe("HandleCache (the token's key handles, bounded by SIGNING_KEY_CACHE_MAX_KEYS)", () => {
  it('holds at most its bound, dropping the least recently used', () => {
    const cache = new HandleCache(3);
    for (const [kid, n] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      cache.set(kid, handle(n));
    expect(cache.get('a')).toEqual(handle(1)); // a is now the most recently used
    cache.set('d', handle(4));
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([1, 3, 4].map(handle));
    for (let i = 0; i < 1000; i++) cache.set(`kid-${i}`, handle(i % 256));
    expect(['a', 'c', 'd', 'kid-996'].map((kid) => cache.get(kid))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(cache.get('kid-999')).toEqual(handle(999 % 256));
  });

  it('forgets a deleted handle, and refuses a bound under one', () => {
    const cache = new HandleCache(1);
    cache.set('a', handle(1));
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(() => new HandleCache(0)).toThrow(/at least one/);
  });
});
