import { describe, expect, it } from 'vitest';
import { createRevocationLookup } from '../../../src/projections/revocation-lookup.js';
import { purgeExpiredRevocations } from '../../../src/projections/token-revocations.js';
import { createTestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

describe('the revocation lookup', () => {
  it('follows revocations by the database clock, so a replica whose clock runs ahead misses none', async () => {
    const database = await createTestDatabase(2);
    // This process's clock is ten minutes ahead of the database's.
    const lookup = await createRevocationLookup(database.db, {
      refreshMs: 50,
      maxEntries: 1000,
      now: () => Date.now() + 600_000,
    });
    try {
      expect(lookup.isRevoked('jti-late')).toBe(false);
      await database.pool.query(
        `INSERT INTO token_revocations (jti, space_id, client_id, token_kind, expires_at, revoked_at)
         VALUES ('jti-late', 'space-a', 'ci_a', 'private', now() + interval '2 hours', now())`,
      );
      expect(
        await waitUntil(
          () => lookup.isRevoked('jti-late'),
          (revoked) => revoked,
        ),
      ).toBe(true);
    } finally {
      lookup.close();
    }
  });

  it('holds at most maxEntries ids and still answers exactly past them, from the database', async () => {
    const database = await createTestDatabase(2);
    await database.pool.query(
      `INSERT INTO token_revocations (jti, space_id, client_id, token_kind, expires_at, revoked_at)
       SELECT 'jti-' || i, 's', 'ci_a', 'public', now() + interval '1 hour', now()
       FROM generate_series(1, 5) AS i`,
    );
    const lookup = await createRevocationLookup(database.db, {
      refreshMs: 50,
      maxEntries: 3,
      fullReloadMs: 200,
    });
    try {
      expect(lookup.size()).toBe(3);
      expect(lookup.overflowing()).toBe(true);
      for (let i = 1; i <= 5; i += 1) expect(await lookup.isRevoked(`jti-${i}`)).toBe(true);
      expect(await lookup.isRevoked('jti-never')).toBe(false);
      lookup.noteRevoked('jti-new', Date.now() + 60_000);
      expect(lookup.size()).toBe(3);

      // Back under the bound, a full reload makes memory exact again: no query per request.
      await database.pool.query(`DELETE FROM token_revocations WHERE jti IN ('jti-4', 'jti-5')`);
      expect(
        await waitUntil(
          () => lookup.overflowing(),
          (overflowing) => !overflowing,
        ),
      ).toBe(false);
      expect(lookup.size()).toBe(3);
      expect(lookup.isRevoked('jti-1')).toBe(true);
      expect(lookup.isRevoked('jti-never')).toBe(false);
    } finally {
      lookup.close();
    }
  });

  it('expired revocations leave the read model; their events stay in the log', async () => {
    const database = await createTestDatabase(2);
    await database.pool.query(
      `INSERT INTO token_revocations (jti, space_id, client_id, token_kind, expires_at, revoked_at)
       VALUES ('jti-old', 's', 'ci_a', 'public', now() - interval '2 minutes', now() - interval '1 hour'),
              ('jti-live', 's', 'ci_a', 'public', now() + interval '1 hour', now())`,
    );
    expect(await purgeExpiredRevocations(database.db)).toBe(1);
    const { rows } = await database.pool.query<{ jti: string }>(
      'SELECT jti FROM token_revocations',
    );
    expect(rows.map((row) => row.jti)).toEqual(['jti-live']);
  });
});
