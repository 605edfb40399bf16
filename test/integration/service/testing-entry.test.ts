import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startTokenAuthority } from '../../../src/testing/index.js';
import { createTestDatabase } from '../../support/test-database.js';
import { packedConsumerProject } from '../../support/consumer-project.js';
import { waitUntil } from '../../support/wait.js';

const run = promisify(execFile);
const work = await mkdtemp(path.join(tmpdir(), 'token-authority-consumer-'));
afterAll(() => rm(work, { recursive: true, force: true }));

// What a user's integration test does: plain JavaScript, plain node, no TypeScript anywhere.
const USER_TEST = `
import assert from 'node:assert/strict';
import { startTokenAuthority } from 'token-authority/testing';
import { createVerifier, verifyFetchRequest } from 'token-authority/verify';

const authority = await startTokenAuthority();
try {
  const meta = await (await fetch(authority.issuer + '/.well-known/oauth-authorization-server')).json();
  assert.equal(meta.issuer, authority.issuer);
  const login = await authority.loginToken('shop');
  const created = await fetch(authority.url + '/v1/credential', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + login, 'x-service-space-id': 'shop', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'storefront', description: 'integration test' }),
  });
  assert.equal(created.status, 201);
  const client = await created.json();
  const basic = Buffer.from(client.client_id + ':' + client.client_secret).toString('base64');
  const granted = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { authorization: 'Basic ' + basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&audience=' + authority.audiences[0],
  });
  assert.equal(granted.status, 200);
  const { access_token } = await granted.json();
  const issued = await fetch(authority.url + '/v1/issue', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + access_token, 'x-service-space-id': 'shop', 'content-type': 'application/json' },
    body: JSON.stringify({ customer_id: 'c-1', segment_id: 'vip' }),
  });
  assert.equal(issued.status, 200);
  const publicToken = (await issued.json()).token;
  // The resource server's side: the kit verifies it against the JWKS and the revocation list.
  const verifier = createVerifier({ issuer: authority.issuer, audience: authority.audiences[0] });
  const verified = await verifyFetchRequest(
    verifier,
    new Request('https://shop.example/graphql', { headers: { authorization: 'Bearer ' + publicToken } }),
  );
  assert.equal(verified.token.customer_id, 'c-1');
  const refused = await verifyFetchRequest(
    verifier,
    new Request('https://shop.example/graphql', { headers: { authorization: 'Bearer ' + access_token } }),
  );
  assert.equal(refused.refusal.status, 401);
  const introspected = await fetch(meta.introspection_endpoint, {
    method: 'POST',
    headers: { authorization: 'Basic ' + basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'token=' + publicToken,
  });
  const claims = await introspected.json();
  assert.equal(claims.active, true);
  // The projector runs too: the audit trail shows the issuance within a few seconds.
  let entries = [];
  for (let i = 0; i < 50 && entries.length < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const audit = await fetch(authority.url + '/v1/audit/events', {
      headers: { authorization: 'Bearer ' + login, 'x-service-space-id': 'shop' },
    });
    entries = (await audit.json()).items.filter((e) => e.event_type !== 'audit-log-read');
  }
  console.log(JSON.stringify({ kind: claims.token_kind, customer: claims.customer_id, audit: entries.map((e) => e.event_type) }));
} finally {
  await authority.stop();
}
`;

/**
 * The file a `#` import names, as the nearest package.json's `imports` maps it (the tarball's
 * dist/package.json: `#verifier/…`, `#audit-log/…`, `#outbound/…`, the packages compiled beside
 * the service).
 */
async function packageImport(file: string, specifier: string): Promise<string> {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
    if (manifest === undefined) continue;
    const imports = (JSON.parse(manifest) as { imports?: Record<string, string> }).imports ?? {};
    for (const [key, target] of Object.entries(imports)) {
      const prefix = key.replace(/\*$/, '');
      if (key.endsWith('*') && specifier.startsWith(prefix))
        return path.resolve(dir, target.replace(/\*$/, '') + specifier.slice(prefix.length));
    }
    break;
  }
  throw new Error(`${file}: ${specifier} is mapped by no package.json "imports"`);
}

/** Every file `entry` loads (static imports, followed), and the packages they name. */
async function importGraph(entry: string) {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = async (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = await readFile(file, 'utf8');
    for (const [, specifier] of source.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g,
    )) {
      if (specifier!.startsWith('.')) await visit(path.resolve(path.dirname(file), specifier!));
      else if (specifier!.startsWith('#')) await visit(await packageImport(file, specifier!));
      else if (!specifier!.startsWith('node:')) packages.add(specifier!.split('/')[0]!);
    }
  };
  await visit(entry);
  return { files: [...files], packages: [...packages] };
}

describe('token-authority/testing, from the packed tarball', () => {
  it('installs into a plain JavaScript project and runs the real service (API and projector) for its tests', async () => {
    const { project, files } = await packedConsumerProject(work);
    expect(files).toContain('dist/testing/index.js');
    expect(files).toContain('dist/testing/index.d.ts');
    expect(files).toContain('dist/verify/index.js');
    expect(files).toContain('dist/verify/index.d.ts');
    // audit-log reaches settings by name: the service's build answers it from inside dist.
    expect(files).toContain('dist/node_modules/token-authority-settings/index.js');
    // The testcontainers module is a package of its own (packages/testcontainers).
    expect(files.filter((file) => file.startsWith('dist/testcontainers/'))).toEqual([]);
    expect(files).toContain('dist/http/dashboard/index.html');
    expect(files).toContain('migrations/001_event_store.sql');
    expect(files.filter((file) => file.startsWith('src/') || file.startsWith('test/'))).toEqual([]);

    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev'], {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(await readdir(path.join(project, 'node_modules', 'token-authority'))).toContain('dist');
    // The verifier kit stands alone: nothing it loads reaches the key store, kysely or pg.
    const kit = await importGraph(
      path.join(project, 'node_modules', 'token-authority', 'dist', 'verify', 'index.js'),
    );
    expect(kit.files.length).toBeGreaterThan(3);
    expect(kit.files.filter((file) => /key-store|db\//.test(file))).toEqual([]);
    expect(kit.packages.filter((name) => ['kysely', 'pg', 'pino', 'koa'].includes(name))).toEqual(
      [],
    );
    await writeFile(path.join(project, 'user.test.mjs'), USER_TEST);
    const { stdout } = await run(process.execPath, ['user.test.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      timeout: 120_000,
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      kind: 'public',
      customer: 'c-1',
      // The kit read the token's status list: the version it was served is logged too.
      audit: [
        'credential-created',
        'private-token-issued',
        'public-token-issued',
        'status-list-published',
      ],
    });
  }, 600_000);
});

describe('token-authority/testing on a database of the caller', () => {
  it('runs on it through least-privileged logins it creates, projector included, and leaves its rows there', async () => {
    const database = await createTestDatabase(2);
    const authority = await startTokenAuthority({ databaseUrl: database.url });
    try {
      const login = await authority.loginToken('shop');
      const created = await fetch(`${authority.url}/v1/credential`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${login}`,
          'x-service-space-id': 'shop',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'storefront', description: 'integration test' }),
      });
      expect(created.status).toBe(201);
      // The projector runs: the audit view catches up by itself.
      await waitUntil(
        async () =>
          (await database.pool.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n,
        (n: number) => n >= 1,
      );
      const roles = await database.pool.query<{ usename: string }>(
        `SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database()
           AND application_name LIKE 'token-authority-testing-%'`,
      );
      expect(roles.rows.map((row) => row.usename).sort()).toEqual([
        'token_authority_api_login',
        'token_authority_projector_login',
      ]);
    } finally {
      await authority.stop();
    }
    const { rows } = await database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE event_type = 'credential-created'`,
    );
    expect(rows[0]!.n).toBe(1);
  }, 60_000);
});
