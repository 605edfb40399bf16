import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createStatusSlots, STATUS_LIST_SIZE } from '../../src/crypto/status-slots.js';

const HOUR = 3_600_000;

describe("a process's status-list entries (issue 65)", () => {
  it('hands out every index of a list once, then opens another', () => {
    const slots = createStatusSlots(randomBytes(32));
    const now = 10 * HOUR;
    const taken = Array.from({ length: STATUS_LIST_SIZE }, () => slots.take('s1', now, false)!);
    expect(new Set(taken.map((slot) => slot.list)).size).toBe(1);
    expect(new Set(taken.map((slot) => slot.idx)).size).toBe(STATUS_LIST_SIZE);
    expect(Math.max(...taken.map((slot) => slot.idx))).toBe(STATUS_LIST_SIZE - 1);
    // Placed at random: the first ten of a list are not its first indexes.
    expect(taken.slice(0, 10).filter((slot) => slot.idx < 10).length).toBeLessThan(3);
    expect(slots.take('s1', now, false)!.list).not.toBe(taken[0]!.list);
  });

  it('opens a list per space, per hour and per ring', () => {
    const slots = createStatusSlots(randomBytes(32));
    const first = slots.take('s1', 10 * HOUR, false)!.list;
    expect(slots.take('s1', 10 * HOUR + 1000, false)!.list).toBe(first);
    expect(slots.take('s2', 10 * HOUR, false)!.list).not.toBe(first);
    expect(slots.take('s1', 11 * HOUR, false)!.list).not.toBe(first);
    expect(slots.take('s1', 11 * HOUR, true)!.list).not.toBe(
      slots.take('s1', 11 * HOUR, false)!.list,
    );
  });

  it('hands out none when the operator turned the lists off', () => {
    const slots = createStatusSlots(randomBytes(32), false);
    expect(slots.take('s1', 0, true)).toBeUndefined();
    expect(slots.take('s1', 0, false)).toBeUndefined();
  });

  it("tells its lists' ring to a replica with the same key, and nothing of any other id", () => {
    const key = randomBytes(32);
    const [mine, replica] = [createStatusSlots(key), createStatusSlots(key)];
    const own = mine.take('s1', 0, true)!.list;
    const shared = mine.take('s1', 0, false)!.list;
    expect(replica.ringOf('s1', own)).toBe('own');
    expect(replica.ringOf('s1', shared)).toBe('shared');
    // Another space's list, a key not shared, a flipped bit, a made-up id: none.
    expect(replica.ringOf('s2', own)).toBeUndefined();
    expect(createStatusSlots(randomBytes(32)).ringOf('s1', own)).toBeUndefined();
    const flipped = Buffer.from(own, 'base64url');
    flipped[0]! ^= 1;
    expect(replica.ringOf('s1', flipped.toString('base64url'))).toBeUndefined();
    expect(replica.ringOf('s1', 'A'.repeat(22))).toBeUndefined();
  });
});
