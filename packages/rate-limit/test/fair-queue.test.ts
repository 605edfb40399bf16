import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFairQueue } from '../src/fair-queue.js';

function queue(maxQueued = 100, maxQueuedPerSpace?: number) {
  const expired: string[] = [];
  const q = createFairQueue<string>({
    maxQueued,
    ...(maxQueuedPerSpace === undefined ? {} : { maxQueuedPerSpace }),
    maxWaitMs: 1_000,
    expired: (items) => expired.push(...items),
  });
  return { q, expired };
}

afterEach(() => vi.useRealTimers());

describe('createFairQueue', () => {
  it("takes one item per space a round: a flooding space's backlog never stands ahead of another's one item", () => {
    const { q } = queue();
    for (let i = 0; i < 20; i++) expect(q.offer('flood', `f${i}`)).toBe(true);
    expect(q.offer('quiet', 'q0')).toBe(true);
    // The quiet space's single item arrived after twenty of the flood's, and is taken in the first round.
    expect(q.take(4)).toEqual(['f0', 'q0', 'f1', 'f2']);
    expect(q.size()).toBe(17);
  });

  it('keeps first-in first-out within a space and rotates the turn across takes', () => {
    const { q } = queue();
    for (const item of ['a0', 'a1', 'a2']) q.offer('a', item);
    for (const item of ['b0', 'b1']) q.offer('b', item);
    q.offer('c', 'c0');
    expect(q.take(2)).toEqual(['a0', 'b0']);
    // c has not had its turn yet: it comes first in the next take.
    expect(q.take(2)).toEqual(['c0', 'a1']);
    expect(q.take(10)).toEqual(['b1', 'a2']);
    expect(q.size()).toBe(0);
  });

  it("refuses past the whole queue's bound and past a space's share", () => {
    const { q } = queue(3, 2);
    expect(q.offer('a', 'a0')).toBe(true);
    expect(q.offer('a', 'a1')).toBe(true);
    expect(q.offer('a', 'a2')).toBe(false);
    expect(q.offer('b', 'b0')).toBe(true);
    expect(q.offer('c', 'c0')).toBe(false);
    q.take(1);
    expect(q.offer('a', 'a2')).toBe(true);
  });

  it('hands items that waited past their deadline to expired, and takes only the rest', () => {
    vi.useFakeTimers();
    const { q, expired } = queue();
    q.offer('a', 'old-a');
    q.offer('b', 'old-b');
    vi.advanceTimersByTime(600);
    q.offer('a', 'new-a');
    vi.advanceTimersByTime(600);
    expect(expired.sort()).toEqual(['old-a', 'old-b']);
    expect(q.size()).toBe(1);
    expect(q.take(5)).toEqual(['new-a']);
  });
});
