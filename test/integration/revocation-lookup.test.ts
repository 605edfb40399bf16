import { describe, expect, it } from 'vitest';
import { createRevocationLookup } from '../../src/projections/revocation-lookup.js';
import { createTestDatabase } from '../support/test-database.js';
import { waitUntil } from '../support/wait.js';

describe('the revocation lookup', () => {
  it('follows revocations by the database clock, so a replica whose clock runs ahead misses none', async () => {
    const database = await createTestDatabase(2);
    // This process's clock is ten minutes ahead of the database's.
    const lookup = await createRevocationLookup(database.db, {
      refreshMs: 50,
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
});
