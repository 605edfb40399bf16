import type { TestProject } from 'vitest/node';
import { connect } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { startTestPostgres, type TestPostgres } from './postgres-source.js';
import { TEMPLATE_DATABASE, withDatabase } from './database-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One server per test worker (test-database.ts, adminDatabaseUrl). */
    adminDatabaseUrls: string[];
  }
}

/**
 * A Postgres per worker (one server's visibility horizon is shared by every database on it), each
 * with a migrated template database that every test file clones. DATABASE_URL names one server:
 * vitest.config.ts runs one worker then.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers: TestPostgres[] = [];
  try {
    for (let worker = 0; worker < (project.config.maxWorkers || 1); worker++) {
      servers.push(await startServer());
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  }
  project.provide(
    'adminDatabaseUrls',
    servers.map((server) => server.adminUrl),
  );
  return async () => void (await Promise.all(servers.map((server) => server.stop())));
}

async function startServer(): Promise<TestPostgres> {
  const started = Date.now();
  const postgres = await startTestPostgres();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`[test] Postgres from ${postgres.source} (${postgres.detail}), up in ${seconds} s`);
  const admin = connect({
    url: postgres.adminUrl,
    poolSize: 1,
    applicationName: 'test-setup',
    idleInTransactionTimeoutMs: 60_000,
  });
  await admin.pool.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await admin.pool.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.close();
  const template = connect({
    url: withDatabase(postgres.adminUrl, TEMPLATE_DATABASE),
    poolSize: 1,
    applicationName: 'test-setup',
    idleInTransactionTimeoutMs: 60_000,
  });
  await migrate(template.pool);
  await template.close();
  return postgres;
}
