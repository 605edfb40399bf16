import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

/**
 * An operator's first day (issue 32): a secret setting's value never reaches stdout or stderr,
 * whatever is wrong with it; a port that cannot be had is one line naming its setting; a quiet
 * service's log lines are on stdout within a second, warnings at once. Each case starts the real
 * command and reads all it printed.
 */
let database: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  database = await createTestDatabase(2);
  dataDir = await mkdtemp(path.join(tmpdir(), 'token-authority-secret-settings-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** Starts `npm run <command>` with `env`: what it has printed so far, and how it ends. */
function start(command: 'api' | 'projector', env: Record<string, string>, ms = 20_000) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.resolve(`src/cli/${command}.ts`)],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: database.url,
        MIGRATE_ON_START: 'false',
        PORT: '0',
        METRICS_PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'debug',
        // What npm start hands the API; without it the API stops for want of it.
        AUDIT_PUBLIC_KEY: JSON.stringify(
          generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }),
        ),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
  return { child, output: () => output, exited };
}

/** Runs `npm run <command>` with `env` to its end (killed after `ms`). */
const run = (command: 'api' | 'projector', env: Record<string, string>, ms?: number) =>
  start(command, env, ms).exited;

// 32 bytes as `openssl rand -base64 32` prints them, except one character short: a key mistyped.
const mistypedKey = () => {
  let key = '';
  while (!/[+/]/.test(key)) key = randomBytes(32).toString('base64');
  return key.slice(1);
};
const privateJwk = () =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, string>;

const cases: ReadonlyArray<{
  readonly name: string;
  readonly command: 'api' | 'projector';
  readonly setting: string;
  readonly value: () => { readonly value: string; readonly secret: string };
}> = [
  {
    name: 'a mistyped base64 key-encryption key (not taken for a path)',
    command: 'api',
    setting: 'SIGNING_KEY_ENCRYPTION_KEY',
    value: () => {
      const key = mistypedKey();
      return { value: key, secret: key };
    },
  },
  {
    name: 'an audit signing key that is not JSON (not taken for a path)',
    command: 'projector',
    setting: 'AUDIT_SIGNING_KEY',
    value: () => {
      const key = randomBytes(32).toString('base64');
      return { value: key, secret: key };
    },
  },
  {
    name: 'an audit signing key that is broken JSON (JSON.parse would quote it)',
    command: 'projector',
    setting: 'AUDIT_SIGNING_KEY',
    value: () => {
      const jwk = privateJwk();
      return { value: JSON.stringify(jwk).slice(0, -2), secret: jwk.d! };
    },
  },
  {
    name: 'an audit signing key that is JSON but not a usable key',
    command: 'projector',
    setting: 'AUDIT_SIGNING_KEY',
    value: () => {
      const jwk = privateJwk();
      return { value: JSON.stringify({ ...jwk, x: 'AAAA', crv: 'X25519' }), secret: jwk.d! };
    },
  },
  {
    name: 'a secret-hash key of the wrong shape',
    command: 'api',
    setting: 'SECRET_HASH_KEY',
    value: () => {
      const key = `${randomBytes(16).toString('hex')}!`;
      return { value: key, secret: key };
    },
  },
];

describe('no secret setting is ever echoed', () => {
  it.each(cases)('$setting: $name', async ({ command, setting, value }) => {
    const { value: sent, secret } = value();
    const { code, output } = await run(command, { [setting]: sent });
    expect(code).toBe(2);
    expect(output).toContain(setting);
    expect(output).not.toContain(secret);
    // Not a stack trace: one line names the setting.
    expect(output).not.toMatch(/^\s+at /m);
  });

  it('a database URL whose server is away: its password is not printed while the service waits', async () => {
    const password = randomBytes(12).toString('hex');
    const { output } = await run(
      'api',
      { DATABASE_URL: `postgres://someone:${password}@127.0.0.1:1/nothing` },
      6000,
    );
    expect(output.length).toBeGreaterThan(0);
    expect(output).not.toContain(password);
  });
});

describe('a port that cannot be had', () => {
  it.each(['METRICS_PORT', 'PORT'])(
    '%s taken by another process: exit 2 with one line naming the setting, no stack trace',
    async (setting) => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const port = String((taken.address() as { port: number }).port);
      try {
        const { code, output } = await run('api', {
          [setting]: port,
          ...(setting === 'PORT' ? { HOST: '127.0.0.1' } : {}),
        });
        expect(code).toBe(2);
        expect(output).toMatch(
          new RegExp(
            `^Invalid configuration: ${setting}: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)$`,
            'm',
          ),
        );
        expect(output).not.toMatch(/^\s+at /m);
      } finally {
        taken.close();
      }
    },
  );
});

describe('logs on a quiet service', () => {
  it('a warning is on stdout at once, an access-log line within a second', async () => {
    const api = start(
      'api',
      { TRUSTED_PROXY_HOPS: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      30_000,
    );
    try {
      const port = await waitUntil(
        () => /"port":(\d+),"msg":"API listening"/.exec(api.output())?.[1],
        Boolean,
        { timeoutMs: 15_000, intervalMs: 20 },
      );
      const sent = Date.now();
      const response = await fetch(`http://127.0.0.1:${port}/v1/credential`, {
        method: 'POST',
        headers: { 'x-forwarded-for': '203.0.113.9', 'x-service-space-id': 'space-other' },
      });
      expect(response.status).toBe(401);
      await waitUntil(() => api.output().includes('TRUSTED_PROXY_HOPS=0'), Boolean, {
        timeoutMs: 500,
        intervalMs: 10,
      });
      const warnedAfter = Date.now() - sent;
      // The refused request's access-log line: within the second of the flush, and a little.
      await waitUntil(() => /"path":"\/v1\/credential"/.test(api.output()), Boolean, {
        timeoutMs: 1500,
        intervalMs: 10,
      });
      expect(warnedAfter).toBeLessThan(500);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });
});
