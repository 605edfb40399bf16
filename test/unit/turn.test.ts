import { describe, expect, it, vi } from 'vitest';
import { inTurn } from '../../src/crypto/turn.js';

describe('inTurn', () => {
  it("does a turn's work in a row at its end, in the order asked, a throw failing only its own", async () => {
    const done: string[] = [];
    const asked = [
      inTurn(() => done.push('a')),
      inTurn(() => {
        done.push('b');
        throw new Error('b failed');
      }),
      inTurn(() => done.push('c')),
    ];
    const settled: string[] = [];
    asked.forEach((each, index) =>
      each.then(
        () => settled.push(`done ${index}`),
        () => settled.push(`failed ${index}`),
      ),
    );
    // Every microtask drained: nothing is done before the turn ends.
    await new Promise<void>((resolve) => process.nextTick(resolve));
    await Promise.resolve();
    expect(done).toEqual([]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(done).toEqual(['a', 'b', 'c']);
    expect(settled).toEqual(['done 0', 'failed 1', 'done 2']);
    await expect(asked[1]).rejects.toThrow('b failed');
  });

  it('does work asked from a finished piece at the next turn, and is not held back by fake timers', async () => {
    const realTimeout = setTimeout;
    vi.useFakeTimers();
    try {
      const next = inTurn(() => 1).then((first) => inTurn(() => first + 1));
      const heldBack = new Promise((_, reject) =>
        realTimeout(() => reject(new Error('held back by fake timers')), 2_000),
      );
      expect(await Promise.race([next, heldBack])).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
