import { describe, expect, it } from 'vitest';
import { rememberFirstUnused } from '../../../src/projections/used-once-ids.js';
import { createTestDatabase } from '../../support/test-database.js';

/**
 * The delegation budget's slots (issue 55): the first free of a window's ids claimed in one
 * statement, exactly once each however many callers race for them.
 */
const database = await createTestDatabase(20);
const slots = (n: number) => Array.from({ length: n }, (_, i) => `slot-${i}`);
const used = (holder: string, ids: readonly string[]) => ({
  spaceId: 'space-slots',
  holder,
  ids,
  expiresAt: new Date(Date.now() + 60_000),
});

describe('rememberFirstUnused', () => {
  it('takes the ids in order, then answers undefined', async () => {
    const ids = slots(3);
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await rememberFirstUnused(database.db, used('a', ids)));
    expect(taken).toEqual([0, 1, 2, undefined]);
    // Another holder's ids are its own.
    expect(await rememberFirstUnused(database.db, used('b', ids))).toBe(0);
  });

  it('racing callers, more than the ids, get each id exactly once', async () => {
    const ids = slots(10);
    const taken = await Promise.all(
      Array.from({ length: 25 }, () => rememberFirstUnused(database.db, used('race', ids))),
    );
    const got = taken.filter((slot) => slot !== undefined).sort((a, b) => a - b);
    expect(got).toEqual([...Array(10).keys()]);
    expect(taken.filter((slot) => slot === undefined)).toHaveLength(15);
  });
});
