import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DatabaseHandle } from '../../../src/db/database.js';
import { purgeExpiredIdempotentResponses } from '../../../src/projections/idempotent-responses.js';
import { purgeExpiredRevocations } from '../../../src/projections/token-revocations.js';
import { purgeExpiredUsedOnce } from '../../../src/projections/used-once-ids.js';
import { purgedBy } from '../../../src/projections/purge.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/db/schema.js';
import { withDatabase } from '../../support/database-url.js';
import {
  adminDatabaseUrl,
  createTestDatabase,
  type TestDatabase,
} from '../../support/test-database.js';

/**
 * Issue 40 (3): what leaves the read models that guard tokens is decided by the database. Each
 * service role connects with a login of its own, as deployments run it, and tries to remove a
 * live revocation, used-once id or kept response (which would un-revoke a token, allow a replay,
 * run a rotation twice): refused. The projector's purge functions remove expired rows only.
 */
const SERVICE_ROLES = [
  'token_authority_api',
  'token_authority_projector',
  // The legacy role of migration 001, still granted INSERT on revocations.
  'token_authority_app',
] as const;

/** Each table, with its expired row ('old') and its live one ('live'), and how to name one. */
const TABLES = [
  {
    table: 'token_revocations',
    key: 'jti',
    insert: `INSERT INTO token_revocations (jti, space_id, client_id, token_kind, expires_at, revoked_at)
             VALUES ('old', 's', 'ci_a', 'public', now() - interval '2 minutes', now() - interval '1 hour'),
                    ('live', 's', 'ci_a', 'public', now() + interval '1 hour', now())`,
    purge: purgeExpiredRevocations,
  },
  {
    table: 'used_once_ids',
    key: 'id_hash',
    insert: `INSERT INTO used_once_ids (space_id, holder, id_hash, expires_at)
             VALUES ('s', 'client:ci_a', 'old', now() - interval '2 minutes'),
                    ('s', 'client:ci_a', 'live', now() + interval '1 hour')`,
    purge: purgeExpiredUsedOnce,
  },
  {
    table: 'idempotent_responses',
    key: 'idempotency_key_hash',
    insert: `INSERT INTO idempotent_responses
               (space_id, idempotency_key_hash, request_hash, sealed_response, expires_at)
             VALUES ('s', 'old', 'r', '{}', now() - interval '2 minutes'),
                    ('s', 'live', 'r', '{}', now() + interval '1 hour')`,
    purge: purgeExpiredIdempotentResponses,
  },
  {
    // A switch-over token's digest: deleting a live one would refuse the token, not admit one.
    table: 'stream_digests',
    key: 'stream_id',
    insert: `INSERT INTO stream_digests (space_id, stream_id, digest, expires_at)
             VALUES ('s', 'old', decode(repeat('00', 16), 'hex'), now() - interval '2 minutes'),
                    ('s', 'live', decode(repeat('00', 16), 'hex'), now() + interval '1 hour')`,
    purge: (db: Kysely<Database>) => purgedBy(db, 'purge_expired_stream_digests'),
  },
] as const;

let database: TestDatabase;
const logins = new Map<string, DatabaseHandle>();
const created: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase(2);
  for (const { insert } of TABLES) await database.pool.query(insert);
  for (const role of SERVICE_ROLES) {
    const login = `purge_${randomBytes(4).toString('hex')}`;
    await database.pool.query(
      `CREATE ROLE ${login} LOGIN PASSWORD 'pw-${login}' NOSUPERUSER IN ROLE ${role}`,
    );
    created.push(login);
    const url = new URL(withDatabase(adminDatabaseUrl(), database.name));
    url.username = login;
    url.password = `pw-${login}`;
    logins.set(
      role,
      connect({
        url: url.toString(),
        poolSize: 1,
        applicationName: 'projector-privileges-test',
        idleInTransactionTimeoutMs: 5000,
      }),
    );
  }
});

afterAll(async () => {
  for (const handle of logins.values()) await handle.close();
  for (const login of created) await database.pool.query(`DROP ROLE IF EXISTS ${login}`);
});

const keys = async (table: string, key: string) =>
  (
    await database.pool.query<{ key: string }>(`SELECT ${key} AS key FROM ${table} ORDER BY 1`)
  ).rows.map((row) => row.key);

describe('what the service roles may remove from the guarding read models', () => {
  it('no service login may DELETE, TRUNCATE or move the expiry of a row, expired or live', async () => {
    for (const role of SERVICE_ROLES) {
      const restricted = logins.get(role)!;
      for (const { table, key } of TABLES) {
        const refused = [
          `DELETE FROM ${table} WHERE ${key} = 'live'`,
          `DELETE FROM ${table} WHERE ${key} = 'old'`,
          `DELETE FROM ${table}`,
          `TRUNCATE ${table}`,
          `UPDATE ${table} SET expires_at = now() - interval '1 day' WHERE ${key} = 'live'`,
        ];
        for (const statement of refused) {
          await expect(
            restricted.pool.query(statement),
            `${role}: ${statement}`,
          ).rejects.toMatchObject({ code: '42501' });
        }
      }
    }
    for (const { table, key } of TABLES) expect(await keys(table, key)).toEqual(['live', 'old']);
  });

  it("the projector's role reads the spaces' own signing keys only, never the shared ring's (migration 051)", async () => {
    await database.pool
      .query(`INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, space_id)
      VALUES ('shared-k', 'EdDSA', '{}', '{}', NULL), ('space-k', 'EdDSA', '{}', '{}', 's')`);
    const kids = async (role: string) =>
      (
        await logins
          .get(role)!
          .pool.query<{ kid: string }>('SELECT kid FROM signing_keys ORDER BY 1')
      ).rows.map((row) => row.kid);
    expect(await kids('token_authority_projector')).toEqual(['space-k']);
    expect(await kids('token_authority_api')).toEqual(['shared-k', 'space-k']);
    await expect(
      logins
        .get('token_authority_projector')!
        .pool.query('UPDATE signing_keys SET retired_at = now()'),
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('only the projector may run the purge functions', async () => {
    for (const role of ['token_authority_api', 'token_authority_app'] as const) {
      for (const { purge } of TABLES) {
        await expect(purge(logins.get(role)!.db), role).rejects.toMatchObject({ code: '42501' });
      }
    }
    for (const { table, key } of TABLES) expect(await keys(table, key)).toEqual(['live', 'old']);
  });

  it("the projector's purge removes the expired rows and leaves every live one", async () => {
    const projector = logins.get('token_authority_projector')!;
    for (const { table, key, purge } of TABLES) {
      expect(await purge(projector.db), table).toBe(1);
      expect(await keys(table, key), table).toEqual(['live']);
      expect(await purge(projector.db), table).toBe(0);
    }
  });
});
