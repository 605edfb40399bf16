/**
 * node-oidc-provider's storage in Postgres, written to its documented adapter interface
 * (`upsert`, `find`, `findByUid`, `findByUserCode`, `consume`, `destroy`, `revokeByGrantId`): the
 * durable shape deployments run for revocable opaque tokens, one row per token, committed before
 * the answer (synchronous_commit is the server's, `on`).
 */
import type pg from 'pg';

/** The table, as node-oidc-provider's example SQL adapters lay it out. */
export const PEER_SCHEMA = `
CREATE TABLE IF NOT EXISTS oidc_payloads (
  id text NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  user_code text,
  uid text,
  expires_at timestamptz,
  consumed_at timestamptz,
  PRIMARY KEY (id, type)
);
CREATE INDEX IF NOT EXISTS oidc_payloads_grant_id ON oidc_payloads (grant_id);
CREATE INDEX IF NOT EXISTS oidc_payloads_user_code ON oidc_payloads (user_code);
CREATE INDEX IF NOT EXISTS oidc_payloads_uid ON oidc_payloads (uid);`;

type Payload = Record<string, unknown> & {
  grantId?: string;
  userCode?: string;
  uid?: string;
};

/** The adapter class node-oidc-provider instantiates once per model name. */
export function postgresAdapter(pool: pg.Pool) {
  const found = (row: { payload: Payload; consumed: boolean } | undefined) =>
    row && { ...row.payload, ...(row.consumed ? { consumed: true } : {}) };
  const one = async (name: string, column: 'id' | 'uid' | 'user_code', value: string) => {
    const { rows } = await pool.query<{ payload: Payload; consumed: boolean }>(
      `SELECT payload, consumed_at IS NOT NULL AS consumed FROM oidc_payloads
       WHERE type = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [name, value],
    );
    return found(rows[0]);
  };
  return class PostgresAdapter {
    constructor(private readonly name: string) {}
    async upsert(id: string, payload: Payload, expiresIn?: number) {
      await pool.query(
        `INSERT INTO oidc_payloads (id, type, payload, grant_id, user_code, uid, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
         ON CONFLICT (id, type) DO UPDATE SET payload = excluded.payload,
           grant_id = excluded.grant_id, user_code = excluded.user_code, uid = excluded.uid,
           expires_at = excluded.expires_at`,
        [
          id,
          this.name,
          payload,
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          expiresIn ?? null,
        ],
      );
    }
    find(id: string) {
      return one(this.name, 'id', id);
    }
    findByUid(uid: string) {
      return one(this.name, 'uid', uid);
    }
    findByUserCode(userCode: string) {
      return one(this.name, 'user_code', userCode);
    }
    async consume(id: string) {
      await pool.query('UPDATE oidc_payloads SET consumed_at = now() WHERE id = $1 AND type = $2', [
        id,
        this.name,
      ]);
    }
    async destroy(id: string) {
      await pool.query('DELETE FROM oidc_payloads WHERE id = $1 AND type = $2', [id, this.name]);
    }
    async revokeByGrantId(grantId: string) {
      await pool.query('DELETE FROM oidc_payloads WHERE grant_id = $1', [grantId]);
    }
  };
}
