import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/test-service.js';

let service: TestService;
beforeAll(async () => {
  // The walk-through asks for audience storefront.api.local, the documented default.
  service = await startTestService({ TOKEN_AUDIENCES: 'storefront.api.local' });
});

describe('README walk-through', () => {
  it('works as written (only the port differs) and its token verifies through the JWKS', async () => {
    const root = path.resolve('.');
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Walk-through'));
    const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(script).toBeDefined();
    const port = new URL(service.baseUrl).port;
    const runnable = script!
      .replaceAll('http://localhost:8080', service.baseUrl)
      .replaceAll('npm run -s', `npm --prefix ${root} run -s`);
    const cwd = await mkdtemp(path.join(tmpdir(), 'walkthrough-'));
    try {
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', runnable], {
        cwd,
        env: {
          ...process.env,
          DATA_DIR: service.config.DATA_DIR,
          PORT: port,
          TOKEN_ISSUER: service.config.TOKEN_ISSUER,
          TOKEN_AUDIENCES: 'storefront.api.local',
          DATABASE_URL: service.database.url,
        },
      });
      // No secret left behind: the walk-through writes no file where it runs (issue 50).
      expect(await readdir(cwd)).toEqual([]);
      // Step 6's verdict is the last line; step 5's, the indented JSON before it.
      const output = stdout.trimEnd();
      const exportVerdict = JSON.parse(output.slice(output.lastIndexOf('\n') + 1)) as {
        ok: boolean;
        format: number;
      };
      expect(exportVerdict).toMatchObject({ ok: true, format: 2 });
      const tokenVerdict = output.slice(
        output.lastIndexOf('{\n  "valid"'),
        output.lastIndexOf('\n'),
      );
      const verified = JSON.parse(tokenVerdict) as {
        valid: boolean;
        claims: Record<string, unknown>;
      };
      expect(verified.valid).toBe(true);
      expect(verified.claims).toMatchObject({
        token_kind: 'public',
        customer_id: 'customer-42',
        segment_id: 'vip',
        space_id: 'my-space',
      });
      const { rows } = await service.database.pool.query<{ event_type: string }>(
        `SELECT event_type FROM events WHERE space_id = 'my-space' AND event_type <> 'audit-log-read'
          ORDER BY transaction_id, global_position`,
      );
      expect(rows.map((row) => row.event_type)).toEqual([
        'credential-created',
        'private-token-issued',
        'public-token-issued',
      ]);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it("its agents' section, run after it, makes the space an authorization server agents discover", async () => {
    const root = path.resolve('.');
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const block = (heading: string) =>
      /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(heading)))?.[1] ?? '';
    const first = block('## Walk-through');
    const agents = block('## Agents that connect');
    expect(agents).toContain('authorization-app');
    const runnable = `${first}\n${agents}`
      .replaceAll('http://localhost:8080', service.baseUrl)
      .replaceAll('npm run -s', `npm --prefix ${root} run -s`);
    const cwd = await mkdtemp(path.join(tmpdir(), 'walkthrough-agents-'));
    try {
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', runnable], {
        cwd,
        env: {
          ...process.env,
          DATA_DIR: service.config.DATA_DIR,
          PORT: new URL(service.baseUrl).port,
          TOKEN_ISSUER: service.config.TOKEN_ISSUER,
          TOKEN_AUDIENCES: 'storefront.api.local',
          DATABASE_URL: service.database.url,
        },
      });
      const last = stdout.trimEnd().split('\n').at(-1);
      expect(last).toBe(`${service.config.TOKEN_ISSUER}/spaces/my-space/authorize`);
      const { rows } = await service.database.pool.query<{ event_type: string }>(
        `SELECT DISTINCT event_type FROM events WHERE space_id = 'my-space'`,
      );
      expect(rows.map((row) => row.event_type)).toEqual(
        expect.arrayContaining(['authorization-app-set', 'metadata-client-domain-allowed']),
      );
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
