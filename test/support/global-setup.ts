import type { TestProject } from 'vitest/node';
import { connect } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { startTestPostgres } from './postgres-source.js';
import { TEMPLATE_DATABASE, withDatabase } from './database-url.js';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

/** One Postgres per run; a migrated template database that every test file clones. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  project.provide('adminDatabaseUrl', postgres.adminUrl);
  return () => postgres.stop();
}
