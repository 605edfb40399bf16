import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLine, descendants } from '../../../tools/reliability/proc.js';
import { mintDevLoginToken } from '../../../src/crypto/login-tokens.js';
import { freePortBelow32768 } from '../../support/postgres-source.js';
import { waitUntil } from '../../support/wait.js';

/** One request on a connection of its own, so the cluster hands it to the next worker. */
function post(
  port: number,
  route: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: route,
        method: body === undefined ? 'GET' : 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', connection: 'close', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : payload);
  });
}

describe('npm start with API_WORKERS=2', () => {
  it('serves from two API processes whose rate limits and /metrics are the host’s, not each worker’s', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'token-authority-workers-'));
    const [port, pgPort, metricsPort] = [
      await freePortBelow32768(),
      await freePortBelow32768(),
      await freePortBelow32768(),
    ];
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/cli/start.ts')], {
      env: {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        EMBEDDED_PG_PORT: String(pgPort),
        API_WORKERS: '2',
        RUN_PROJECTOR: 'false',
        LOG_LEVEL: 'warn',
        TOKEN_AUDIENCES: 'storefront.test',
      },
      stdio: 'ignore',
    });
    try {
      await waitUntil(
        async () => (await post(port, '/readyz', undefined).catch(() => ({ status: 0 }))).status,
        (status) => status === 200,
        { timeoutMs: 20_000, intervalMs: 100 },
      );
      // One worker answering does not mean both have started: wait for the second.
      const workersOf = async () => {
        const workers = [];
        for (const pid of await descendants(child.pid!))
          if ((await commandLine(pid)).includes('src/cli/api.ts')) workers.push(pid);
        return workers;
      };
      const workers = await waitUntil(workersOf, (pids) => pids.length >= 2, {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      expect(workers).toHaveLength(2);

      const login = await mintDevLoginToken({
        dataDir,
        audience: 'token-authority',
        spacesClaim: 'spaces',
        subject: 'ops',
        spaces: ['space-workers'],
        ttlSeconds: 600,
      });
      const created = await post(
        port,
        '/v1/credential',
        { name: 'limited', description: 'ten a minute', rate_limit_per_minute: 10 },
        { authorization: `Bearer ${login}`, 'x-service-space-id': 'space-workers' },
      );
      expect(created.status).toBe(201);
      const credential = JSON.parse(created.text) as { client_id: string; client_secret: string };

      // Twenty requests, each on a new connection (alternating workers), a little apart so each
      // worker has heard what the other spent: exactly the budget of ten is served.
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        const answer = await post(port, '/v1/credential/token', {
          grant_type: 'client_credentials',
          ...credential,
          audience: 'storefront.test',
        });
        statuses.push(answer.status);
        // Workers sync every 20 ms when idle; a loaded CI machine can delay that several-fold
        // (150 ms once let an eleventh request through, with the whole suite running beside it).
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      // Shared, the budget serves ten; each worker's own would serve about twenty. Workers hear
      // each other asynchronously, so a loaded machine can let one more through per worker
      // before the sync lands (CI once served eleven): the bound tells shared from per-worker.
      const served = statuses.filter((status) => status === 200).length;
      expect(served).toBeGreaterThanOrEqual(10);
      expect(served).toBeLessThanOrEqual(12);
      expect(statuses.filter((status) => status === 429)).toHaveLength(20 - served);

      // Whichever worker answers the scrape, it reports both workers' counts.
      for (let i = 0; i < 4; i += 1) {
        const metrics = await post(metricsPort, '/metrics', undefined);
        // Both workers' counts, summed: what was served, not what one worker served.
        expect(metrics.text).toMatch(
          new RegExp(`^token_authority_tokens_issued_total\\{kind="private"\\} ${served}$`, 'm'),
        );
        expect(metrics.text).toMatch(/^token_authority_database_up 1$/m);
      }

      const exited = new Promise<number | null>((resolve) =>
        child.once('exit', (code) => resolve(code)),
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      for (const pid of workers) {
        await waitUntil(
          async () => (await commandLine(pid)).includes('api.ts'),
          (running) => !running,
          { timeoutMs: 5000 },
        );
      }
    } finally {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
