import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { adminDatabaseUrl } from '../../support/test-database.js';
import { connect } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { databaseReadiness } from '../../../src/db/readiness.js';
import { createApp } from '../../../src/http/app.js';
import { healthRoutes } from '../../../src/http/routes/health.js';
import { mountRoutes } from '../../../src/http/route.js';
import { withDatabase } from '../../support/database-url.js';

/** The health routes alone over a pool to `url`, on a free port; `close` when done. */
async function healthServer(url: string) {
  const database = connect({
    url,
    poolSize: 1,
    applicationName: 'health-test',
    idleInTransactionTimeoutMs: 5000,
  });
  const app = createApp({
    logger: pino({ level: 'silent' }),
    trustedProxyHops: 0,
    routers: [
      mountRoutes(healthRoutes(databaseReadiness(database.pool, 1500), pino({ level: 'silent' }))),
    ],
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    async close() {
      server.close();
      await database.close();
    },
  };
}

async function healthOf(
  url: string,
): Promise<{ status: number; body: unknown; retryAfter: string | null }> {
  const server = await healthServer(url);
  try {
    const response = await fetch(`${server.base}/healthz`);
    return {
      status: response.status,
      body: await response.json(),
      retryAfter: response.headers.get('retry-after'),
    };
  } finally {
    await server.close();
  }
}

describe('GET /healthz', () => {
  const admin = connect({
    url: adminDatabaseUrl(),
    poolSize: 1,
    applicationName: 'health-test',
    idleInTransactionTimeoutMs: 5000,
  });
  const name = `health_${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    await admin.pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  });

  it('answers 503 with a reason and Retry-After while the database is unreachable, without its error text', async () => {
    const result = await healthOf('postgres://nobody:nothing@127.0.0.1:1/none');
    expect(result).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'database_unreachable' },
      retryAfter: '1',
    });
  });

  it('answers 503 until the migrations are applied, then 200', async () => {
    await admin.pool.query(`CREATE DATABASE ${name}`);
    const url = withDatabase(adminDatabaseUrl(), name);
    expect(await healthOf(url)).toMatchObject({
      status: 503,
      body: { reason: 'migrations_pending' },
    });
    const database = connect({
      url,
      poolSize: 1,
      applicationName: 'health-test',
      idleInTransactionTimeoutMs: 5000,
    });
    await migrate(database.pool);
    await database.close();
    expect(await healthOf(url)).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('/livez stays 200 while the database is away (a liveness probe must not restart us for it), /readyz says 503', async () => {
    const server = await healthServer('postgres://nobody:nothing@127.0.0.1:1/none');
    try {
      expect((await fetch(`${server.base}/livez`)).status).toBe(200);
      const ready = await fetch(`${server.base}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'unavailable', reason: 'database_unreachable' });
    } finally {
      await server.close();
    }
  });
});
