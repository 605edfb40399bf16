import { describe, expect, it, vi } from 'vitest';
import { inTurn } from '../../src/crypto/turn.js';

describe('inTurn', () => {
  it("does a turn's work in a row at its end, in the order asked, a throw failing only its own", async () => {
    const done: string[] = [];
    const settled: string[] = [];
    let settledBeforeLast = -1;
    const asked = [
      inTurn(() => done.push('a')),
      inTurn(() => {
        done.push('b');
        throw new Error('b failed');
      }),
      inTurn(() => {
        // In a row: no continuation of the first two has run yet.
        settledBeforeLast = settled.length;
        return done.push('c');
      }),
    ];
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
    expect(settledBeforeLast).toBe(0);
    expect(settled).toEqual(['done 0', 'failed 1', 'done 2']);
    await expect(asked[1]).rejects.toThrow('b failed');
  });

  it('does work asked from within a turn at the next one, and is not held back by fake timers', async () => {
    const [realTimeout, realClear] = [setTimeout, clearTimeout];
    vi.useFakeTimers();
    try {
      let inner: Promise<number> | undefined;
      let continued = false;
      const next = inTurn(() => {
        // Asked from within the turn: done in the next one (after this one's continuations).
        inner = inTurn(() => (continued ? 2 : 20));
        return 1;
      }).then(async (first) => {
        continued = true;
        return first + (await inner!);
      });
      let timer: NodeJS.Timeout | undefined;
      const heldBack = new Promise((_, reject) => {
        timer = realTimeout(() => reject(new Error('held back, or lost')), 2_000);
      });
      try {
        expect(await Promise.race([next, heldBack])).toBe(3);
      } finally {
        realClear(timer);
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
