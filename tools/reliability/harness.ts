import { spawn, type ChildProcess } from 'node:child_process';
import type { KeyObject } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { descendants } from './proc.js';
import { mintDevLoginToken } from '../../src/crypto/login-tokens.js';
import { loadAuditSigningKey } from '../../src/audit-trail/audit-key.js';
import { freePort } from '../../src/net/free-port.js';

/** The processes of a running harness, by role. */
export type Role = 'api' | 'projector' | 'postgres';

/**
 * The whole service as separate, killable processes on a Postgres of its own: what the chaos and
 * soak commands and the outage tests run against. Every part can be SIGKILLed and restarted.
 */
export interface Harness {
  readonly apiUrl: string;
  /** A pool on the harness's database, for verification queries. */
  readonly pool: pg.Pool;
  /**
   * The public half of the audit key the projector signs tree heads with (AUDIT_SIGNING_KEY if
   * set, else the pair generated in the harness's DATA_DIR), for the oracle to check them.
   */
  readonly auditPublicKey: KeyObject;
  pid(role: Role): number | undefined;
  /** SIGKILL a part (for Postgres, the postmaster and every backend, as a crash would). */
  kill(role: Role): Promise<void>;
  /** Starts a killed part again; resolves once it runs (the API: once /healthz says 200). */
  restart(role: Role): Promise<void>;
  /** A development login token for `space`. */
  loginToken(space: string): Promise<string>;
  stop(): Promise<void>;
}

const CLI = fileURLToPath(new URL('../../src/cli/', import.meta.url));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` until it answers 200; false after `ms`. */
export async function answers200(url: string, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until;) {
    const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return true;
    await pause(100);
  }
  return false;
}

/** Starts Postgres, the API and the projector; `env` adds settings for both processes. */
export async function startHarness(
  options: { readonly env?: Readonly<Record<string, string>>; readonly logLevel?: string } = {},
): Promise<Harness> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'token-authority-harness-'));
  const [pgPort, apiPort] = [await freePort(), await freePort()];
  const logger = pino({ level: 'warn' });
  const startPostgres = () =>
    startEmbeddedPostgres({
      baseDir: path.join(dataDir, 'postgres'),
      port: pgPort,
      persistent: true,
      logger,
    });
  let postgres: EmbeddedPostgres | undefined = await startPostgres();
  const url = postgres.url;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  // As npm start's supervisor does: the audit key pair exists before the API (which reads only
  // its public half) starts.
  const generated = await loadAuditSigningKey(undefined, dataDir);
  const env = {
    ...process.env,
    DATABASE_URL: url,
    DATA_DIR: dataDir,
    PORT: String(apiPort),
    METRICS_PORT: '0',
    // The harness measures survival, not limits: budgets out of the way.
    CLIENT_RATE_LIMIT_PER_MINUTE: '1000000000',
    SPACE_RATE_LIMIT_PER_MINUTE: '1000000000',
    HOST: '127.0.0.1',
    LOG_LEVEL: options.logLevel ?? 'warn',
    ...options.env,
  };
  // The key the projector signs heads with: a configured one wins over the generated pair.
  const configuredKey = options.env?.AUDIT_SIGNING_KEY ?? process.env.AUDIT_SIGNING_KEY;
  const auditKey = configuredKey ? await loadAuditSigningKey(configuredKey, dataDir) : generated;
  const children: Partial<Record<'api' | 'projector', ChildProcess>> = {};
  const spawnRole = (role: 'api' | 'projector') => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(CLI, `${role}.ts`)], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children[role] = child;
    return child;
  };
  spawnRole('api');
  if (!(await answers200(`${apiUrl}/healthz`, 30_000))) throw new Error('the API did not start');
  spawnRole('projector');

  const running = (child: ChildProcess | undefined): child is ChildProcess =>
    child !== undefined && child.exitCode === null && child.signalCode === null;
  const killChild = async (child: ChildProcess | undefined) => {
    if (!running(child)) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  };

  return {
    apiUrl,
    pool,
    auditPublicKey: auditKey.publicKey,
    pid: (role) => (role === 'postgres' ? postgres?.pid() : children[role]?.pid),
    async kill(role) {
      if (role !== 'postgres') return killChild(children[role]);
      const postmaster = postgres?.pid();
      if (postmaster === undefined) return;
      const backends = await descendants(postmaster);
      for (const pid of [postmaster, ...backends]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      postgres = undefined;
    },
    async restart(role) {
      if (role === 'postgres') {
        // Shared memory of the killed cluster may linger a moment; retry until it starts.
        for (let attempt = 0; !postgres; attempt++) {
          postgres = await startPostgres().catch(async (error: unknown) => {
            if (attempt > 50) throw error;
            await pause(200);
            return undefined;
          });
        }
        return;
      }
      await killChild(children[role]);
      spawnRole(role);
      if (role === 'api' && !(await answers200(`${apiUrl}/healthz`, 30_000))) {
        throw new Error('the API did not come back');
      }
    },
    loginToken: (space) =>
      mintDevLoginToken({
        dataDir,
        audience: 'token-authority',
        spacesClaim: 'spaces',
        subject: 'harness',
        spaces: [space],
        ttlSeconds: 3600,
      }),
    async stop() {
      const live = Object.values(children).filter(running);
      const gone = live.map((child) => new Promise((resolve) => child.once('exit', resolve)));
      for (const child of live) child.kill('SIGTERM');
      await Promise.all(gone);
      await pool.end().catch(() => undefined);
      await postgres?.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
