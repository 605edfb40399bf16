import { describe, expect, it } from 'vitest';
import { SlidingWindowBudgets } from '../src/sliding-window.js';

function clock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('SlidingWindowBudgets', () => {
  it('allows the limit within a minute, then refuses with the wait until a unit leaves the window', () => {
    const time = clock();
    const budgets = new SlidingWindowBudgets({ maxKeys: 10, now: time.now });
    for (let i = 0; i < 5; i++)
      expect(budgets.take('a', 5)).toMatchObject({ allowed: true, remaining: 4 - i });
    expect(budgets.take('a', 5)).toEqual({
      allowed: false,
      retryAfterSeconds: 60,
      resetSeconds: 60,
    });
    time.advance(59_000);
    expect(budgets.take('a', 5)).toEqual({ allowed: false, retryAfterSeconds: 1, resetSeconds: 1 });
    time.advance(1000);
    expect(budgets.take('a', 5).allowed).toBe(true);
  });

  it('answers an allowed check with the seconds until every unit spent has left the window', () => {
    const time = clock(1_700_000_000_000);
    const budgets = new SlidingWindowBudgets({ maxKeys: 10, now: time.now });
    // A reference model: the second of every unit taken.
    const taken: number[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 400; step++) {
      time.advance(Math.floor(random() * 9) * 1000);
      const second = Math.floor(time.now() / 1000);
      const live = taken.filter((at) => at > second - 60);
      const decision = budgets.peek('a', 1_000);
      const expected = live.length === 0 ? 0 : Math.max(1, Math.max(...live) + 60 - second);
      expect(decision).toMatchObject({ allowed: true, resetSeconds: expected });
      if (random() < 0.4) {
        budgets.take('a', 1_000);
        taken.push(second);
      }
    }
  });

  it('never lets a key spend more than its limit in any 60 s, even across a minute boundary', () => {
    const time = clock(1_700_000_040_000); // 40 s into a minute
    const budgets = new SlidingWindowBudgets({ maxKeys: 10, now: time.now });
    let granted = 0;
    const grantedAt: number[] = [];
    for (let step = 0; step < 240; step++) {
      for (let i = 0; i < 7; i++) {
        if (budgets.take('a', 10).allowed) {
          granted += 1;
          grantedAt.push(time.now());
        }
      }
      time.advance(500);
    }
    for (const start of grantedAt) {
      const inWindow = grantedAt.filter((t) => t >= start && t < start + 60_000).length;
      expect(inWindow).toBeLessThanOrEqual(10);
    }
    expect(granted).toBeGreaterThanOrEqual(10 * 2); // two minutes' worth over 120 s
  });

  it('keeps keys apart, and forgets the least recently used past maxKeys', () => {
    const time = clock();
    const budgets = new SlidingWindowBudgets({ maxKeys: 2, now: time.now });
    budgets.take('a', 1);
    expect(budgets.take('b', 1).allowed).toBe(true);
    expect(budgets.take('a', 1).allowed).toBe(false);
    budgets.take('c', 1); // evicts b, the least recently used
    expect(budgets.size).toBe(2);
    expect(budgets.take('b', 1).allowed).toBe(true);
  });

  it('counts several units at once (failures counted in bulk) and accepts limits up to 10^9', () => {
    const time = clock();
    const budgets = new SlidingWindowBudgets({ maxKeys: 10, now: time.now });
    budgets.add('a', 999_999_999);
    expect(budgets.take('a', 1_000_000_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(budgets.take('a', 1_000_000_000).allowed).toBe(false);
  });
});
