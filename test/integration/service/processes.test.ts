import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminDatabaseUrl } from '../../support/test-database.js';
import { connect } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { allPids, commandLine, descendants, isRunning } from '../../../tools/reliability/proc.js';
import { withDatabase } from '../../support/database-url.js';
import { freePortBelow32768 } from '../../support/postgres-source.js';
import { waitUntil } from '../../support/wait.js';
import { EVENT_LOG_MIGRATIONS } from '#event-log/index.js';

const cli = (script: string) => path.resolve('src/cli', script);

/** Processes (pid and command line) that mention `needle`. */
async function mentioning(needle: string): Promise<Array<{ pid: number; cmdline: string }>> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const pid of await allPids()) {
    if (pid === process.pid) continue;
    const cmdline = await commandLine(pid);
    if (cmdline.includes(needle)) found.push({ pid, cmdline });
  }
  return found;
}

const processesMentioning = async (needle: string) =>
  (await mentioning(needle)).map((p) => p.cmdline);
const pidsMentioning = async (needle: string) => (await mentioning(needle)).map((p) => p.pid);

/** A process's environment, as /proc shows it. */
async function environmentOf(pid: number): Promise<Record<string, string>> {
  const text = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
  return Object.fromEntries(
    text
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

/** The processes of `pids` still running after up to `ms` (exits are not instantaneous). */
async function survivors(pids: readonly number[], ms = 5000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left: number[] = [];
    for (const pid of pids) if (await isRunning(pid)) left.push(pid);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `npm start` (src/cli/start.ts) on its own data folder and ports, and a way to await health. */
async function embeddedService(prefix: string, extraEnv: Record<string, string> = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  const [port, pgPort] = [await freePortBelow32768(), await freePortBelow32768()];
  const env = {
    ...process.env,
    DATABASE_URL: '',
    DATA_DIR: dataDir,
    PORT: String(port),
    METRICS_PORT: '0',
    EMBEDDED_PG_PORT: String(pgPort),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  return {
    dataDir,
    pgPort,
    start: () =>
      spawn(process.execPath, ['--import', 'tsx', cli('start.ts')], { env, stdio: 'ignore' }),
    /** True once /healthz answers 200, false after `ms`. */
    async healthyWithin(ms: number): Promise<boolean> {
      for (const until = Date.now() + ms; Date.now() < until;) {
        const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.status,
          () => 0,
        );
        if (status === 200) return true;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return false;
    },
  };
}

/** How long a start may take to answer /healthz before the test calls it broken. */
const READY_MS = 45_000;

describe('npm start (src/cli/start.ts)', () => {
  // Readiness, not speed: a start takes 8–9 s here when idle, more on a busy machine (npm run
  // bench measures speed), so the wait is generous.
  it('serves /healthz on the embedded Postgres and leaves no process behind after SIGINT', async () => {
    const service = await embeddedService('token-authority-start-');
    const { dataDir, pgPort } = service;
    const child = service.start();
    try {
      expect(await service.healthyWithin(READY_MS)).toBe(true);
      expect(await processesMentioning(`-p ${pgPort}`)).toHaveLength(1);
      const family = await descendants(child.pid!);
      // Postgres (postmaster and its workers) and the projector process.
      expect(family.length).toBeGreaterThan(3);
      expect((await processesMentioning('src/cli/projector.ts')).length).toBeGreaterThan(0);
      // The audit deliverer (issue 43), a child of its own once the API listens, stopped with
      // the rest (looked for among this start's own descendants).
      const commands = await waitUntil(
        async () => Promise.all((await descendants(child.pid!)).map(commandLine)),
        (lines) => lines.some((line) => line.includes('src/cli/deliver.ts')),
        { timeoutMs: 20_000 },
      );
      expect(commands.some((line) => line.includes('src/cli/deliver.ts'))).toBe(true);
      const everyone = await descendants(child.pid!);

      const exited = new Promise<number | null>((resolve) =>
        child.once('exit', (code) => resolve(code)),
      );
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(await processesMentioning(`-p ${pgPort}`)).toEqual([]);
      expect(await survivors(everyone)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('hands each child only its own secrets: the API gets no audit signing key and no owner URL, the projector no token secrets', async () => {
    const auditKey = JSON.stringify(
      generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }),
    );
    const secrets = {
      AUDIT_SIGNING_KEY: auditKey,
      SECRET_HASH_KEY: randomBytes(32).toString('base64url'),
      SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    };
    const service = await embeddedService('token-authority-secrets-', secrets);
    const child = service.start();
    try {
      expect(await service.healthyWithin(READY_MS)).toBe(true);
      // The deliverer starts once the API listens.
      await waitUntil(
        async () => Promise.all((await descendants(child.pid!)).map(commandLine)),
        (lines) => lines.some((line) => line.includes('src/cli/deliver.ts')),
        { timeoutMs: 20_000 },
      );
      const family = await descendants(child.pid!);
      const roles: Array<{
        role: 'api' | 'projector' | 'deliverer';
        env: Record<string, string>;
      }> = [];
      for (const pid of family) {
        const cmdline = await commandLine(pid);
        const role = /cli\/api\.ts/.test(cmdline)
          ? 'api'
          : /cli\/projector\.ts/.test(cmdline)
            ? 'projector'
            : /cli\/deliver\.ts/.test(cmdline)
              ? 'deliverer'
              : undefined;
        if (role) roles.push({ role, env: await environmentOf(pid) });
      }
      const api = roles.filter((p) => p.role === 'api');
      const projector = roles.filter((p) => p.role === 'projector');
      expect(api.length).toBeGreaterThan(0);
      expect(projector.length).toBeGreaterThan(0);
      for (const { env } of api) {
        expect(env.AUDIT_SIGNING_KEY ?? '').toBe('');
        expect(env.MIGRATION_DATABASE_URL ?? '').toBe('');
        expect(env.DATABASE_URL).toContain('token_authority_api_login');
        expect(JSON.parse(env.AUDIT_PUBLIC_KEY!)).not.toHaveProperty('d');
        expect(env.SECRET_HASH_KEY).toBe(secrets.SECRET_HASH_KEY);
      }
      for (const { env } of projector) {
        expect(env.SECRET_HASH_KEY ?? '').toBe('');
        expect(env.SIGNING_KEY_ENCRYPTION_KEY ?? '').toBe('');
        expect(env.MIGRATION_DATABASE_URL ?? '').toBe('');
        expect(env.DATABASE_URL).toContain('token_authority_projector_login');
        expect(env.AUDIT_SIGNING_KEY).toBe(auditKey);
      }
      // The deliverer opens sealed webhook secrets (the KEK) and nothing else.
      const deliverer = roles.filter((p) => p.role === 'deliverer');
      expect(deliverer.length).toBeGreaterThan(0);
      for (const { env } of deliverer) {
        expect(env.SECRET_HASH_KEY ?? '').toBe('');
        expect(env.AUDIT_SIGNING_KEY ?? '').toBe('');
        expect(env.MIGRATION_DATABASE_URL ?? '').toBe('');
        expect(env.SIGNING_KEY_ENCRYPTION_KEY).toBe(secrets.SIGNING_KEY_ENCRYPTION_KEY);
        expect(env.DATABASE_URL).toContain('token_authority_projector_login');
      }
    } finally {
      child.kill('SIGINT');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(service.dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('npm start killed outright (SIGKILL)', () => {
  it('its projector stops by itself, and the next start adopts and stops the orphaned Postgres', async () => {
    const service = await embeddedService('token-authority-kill-');
    const { dataDir, pgPort, start } = service;
    const healthy = () => service.healthyWithin(15_000);
    const first = start();
    const second: { child?: ReturnType<typeof start> } = {};
    try {
      expect(await healthy()).toBe(true);
      const family = await descendants(first.pid!);
      const postgres = (await processesMentioning(`-p ${pgPort}`)).length;
      expect(postgres).toBe(1);
      first.kill('SIGKILL');
      // Everything but Postgres (its own process group, no owner left to stop it) goes away.
      const left = await survivors(family);
      const leftCommands = await Promise.all(left.map((pid) => commandLine(pid)));
      expect(leftCommands.filter((cmd) => cmd.includes('projector.ts'))).toEqual([]);

      second.child = start();
      expect(await healthy()).toBe(true);
      const exited = new Promise<number | null>((resolve) =>
        second.child!.once('exit', (code) => resolve(code)),
      );
      second.child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(await survivors(await Promise.resolve(left))).toEqual([]);
      expect(await processesMentioning(`-p ${pgPort}`)).toEqual([]);
    } finally {
      first.kill('SIGKILL');
      second.child?.kill('SIGKILL');
      // Never leave a Postgres behind, even when an assertion above failed.
      for (const pid of await pidsMentioning(`-p ${pgPort}`)) process.kill(pid, 'SIGQUIT');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('configuration errors', () => {
  it('stop the process with exit code 2 and a message naming the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli('api.ts')], {
      env: { ...process.env, PORT: 'eighty', TOKEN_ISSUER: 'not a url' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/PORT: .*"eighty"/);
    expect(stderr).toMatch(/TOKEN_ISSUER: /);
  });
});

describe('migrations', () => {
  const admin = connect({
    url: adminDatabaseUrl(),
    poolSize: 1,
    applicationName: 'migrate-test',
    idleInTransactionTimeoutMs: 5000,
  });
  const name = `migrate_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    await admin.pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  });

  it('are applied exactly once when several processes migrate at the same moment', async () => {
    await admin.pool.query(`CREATE DATABASE ${name}`);
    const url = withDatabase(adminDatabaseUrl(), name);
    const handles = Array.from({ length: 4 }, () =>
      connect({
        url,
        poolSize: 1,
        applicationName: 'migrate-test',
        idleInTransactionTimeoutMs: 5000,
      }),
    );
    try {
      const applied = await Promise.all(handles.map((handle) => migrate(handle.pool)));
      const files = (await readdir(path.resolve('migrations')))
        .filter((f) => f.endsWith('.sql'))
        .sort();
      // The service's files, then the event log's own (recorded in its own table).
      expect(applied.flat().sort()).toEqual(
        [...files, ...EVENT_LOG_MIGRATIONS.map((m) => `event-log/${m.name}`)].sort(),
      );
      const { rows } = await handles[0]!.pool.query(
        'SELECT name FROM schema_migrations ORDER BY name',
      );
      expect(rows.map((row) => row.name)).toEqual(files);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  });
});
