import { randomBytes } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { ADVISORY_LOCK } from './advisory-locks.js';
import { readOrCreateFile } from '#audit-log/read-or-create-file.js';

/** What the connected role could do to the audit log beyond INSERT and SELECT. */
export interface RolePrivileges {
  readonly role: string;
  readonly superuser: boolean;
  /** Owns the events table (or is a member of its owner): may disable or drop its triggers. */
  readonly ownsLog: boolean;
}

/** Asks the database who we are and what that role may do to the log. */
export async function rolePrivileges(pool: pg.Pool): Promise<RolePrivileges> {
  const { rows } = await pool.query<{ role: string; superuser: boolean; owns_log: boolean }>(`
    SELECT current_user AS role,
           (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
           pg_has_role(current_user, c.relowner, 'USAGE') AS owns_log
    FROM pg_class c WHERE c.oid = 'events'::regclass`);
  const row = rows[0]!;
  return { role: row.role, superuser: row.superuser, ownsLog: row.owns_log };
}

/** True when the role could rewrite the log behind its triggers. */
export const isPrivileged = (privileges: RolePrivileges) =>
  privileges.superuser || privileges.ownsLog;

/** The service roles migrations create (NOLOGIN), one per kind of process. */
export type ServiceRole = 'api' | 'projector';

/** A login role for `kind` with a password made once in `secretsDir`; returns its URL. */
export async function ensureServiceLogin(
  owner: pg.Pool,
  ownerUrl: string,
  kind: ServiceRole,
  secretsDir: string,
): Promise<string> {
  const login = `token_authority_${kind}_login`;
  await mkdir(secretsDir, { recursive: true, mode: 0o700 });
  const file = path.join(secretsDir, `${login}.password`);
  const password = (
    await readOrCreateFile(file, () => randomBytes(24).toString('base64url'))
  ).trim();
  await chmod(file, 0o600);
  return setServiceLogin(owner, ownerUrl, kind, password);
}

/** A login role for `kind` with the given password (a migration job's); returns its URL. */
export async function setServiceLogin(
  owner: pg.Pool,
  ownerUrl: string,
  kind: ServiceRole,
  password: string,
): Promise<string> {
  if (!/^[A-Za-z0-9_-]{16,}$/.test(password)) {
    throw new Error(`the ${kind} login password must be 16+ characters of A-Z a-z 0-9 _ -`);
  }
  const login = `token_authority_${kind}_login`;
  // Names and passwords are ours, never a request's; the lock avoids "tuple concurrently updated".
  await owner.query(`
    SELECT pg_advisory_xact_lock(${ADVISORY_LOCK.serviceLogins});
    DO $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${login}') THEN
        CREATE ROLE ${login} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
      END IF;
    END $$;
    ALTER ROLE ${login} WITH LOGIN PASSWORD '${password}';
    GRANT token_authority_${kind} TO ${login};`);
  const url = new URL(ownerUrl);
  url.username = login;
  url.password = password;
  return url.toString();
}
