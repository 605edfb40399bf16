import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Identity } from './os-user.js';
import { isAlive, runTool } from './postmaster.js';

/** The cluster's superuser password, generated once and kept in `file` (mode 0600). */
export async function readOrCreatePassword(
  file: string,
  owner: Identity | undefined,
): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  if (owner) await chown(file, owner.uid, owner.gid);
  await chmod(file, 0o600);
  return password;
}

/** Creates the cluster in `dataDir` unless one is there. */
export async function initClusterIfMissing(options: {
  readonly binDir: string;
  readonly dataDir: string;
  readonly passwordFile: string;
  readonly runAs: Identity | undefined;
}): Promise<boolean> {
  if (existsSync(path.join(options.dataDir, 'PG_VERSION'))) return false;
  await runTool(
    path.join(options.binDir, 'initdb'),
    [
      `--pgdata=${options.dataDir}`,
      '--username=postgres',
      `--pwfile=${options.passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
    ],
    options.runAs,
  );
  return true;
}

/** The process that started (or adopted) the cluster writes its pid here. */
const OWNER_FILE = 'owner.pid';

/** Records this process as the one that stops the cluster in `baseDir`. */
export async function claimCluster(baseDir: string): Promise<void> {
  await writeFile(path.join(baseDir, OWNER_FILE), `${process.pid}\n`);
}

/**
 * The live postmaster on `dataDir` (from its postmaster.pid), if any, and whether it is orphaned:
 * the process that claimed it (owner.pid in `baseDir`) is gone, killed without stopping it.
 */
export async function runningCluster(
  baseDir: string,
  dataDir: string,
): Promise<{ port: number; pid: number; orphaned: boolean } | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return undefined;
  const owner = Number(
    (await readFile(path.join(baseDir, OWNER_FILE), 'utf8').catch(() => '')).trim(),
  );
  return { port, pid, orphaned: !(Number.isInteger(owner) && owner > 0 && isAlive(owner)) };
}
