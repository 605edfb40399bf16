import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { connect, type DatabaseHandle } from '../../src/db/database.js';
import { afterFile } from './after-file.js';
import { TEMPLATE_DATABASE, withDatabase } from './database-url.js';

/** A database of this test file's own, migrated, dropped after the file. */
export interface TestDatabase extends DatabaseHandle {
  readonly url: string;
  readonly name: string;
}

/**
 * The Postgres of this test worker: global setup starts one per worker, because the log's
 * visibility horizon is the whole server's, and one file's open transaction would hold back
 * another's projector and sealer (VITEST_POOL_ID runs from 1 to the worker count).
 */
export function adminDatabaseUrl(): string {
  const urls = inject('adminDatabaseUrls');
  const url = urls[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % urls.length];
  if (!url)
    throw new Error(`no Postgres for worker ${process.env.VITEST_POOL_ID} of ${urls.length}`);
  return url;
}

/**
 * Copies the migrated template into a fresh database so test files never see each other's rows
 * (`empty`: a database with nothing migrated, for tests of the migrations themselves).
 * Call at module level or in beforeAll; it registers its own cleanup (afterFile).
 */
export async function createTestDatabase(
  poolSize = 10,
  { empty = false }: { readonly empty?: boolean } = {},
): Promise<TestDatabase> {
  const adminUrl = adminDatabaseUrl();
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = connect({
    url: adminUrl,
    poolSize: 1,
    applicationName: 'test',
    idleInTransactionTimeoutMs: 60_000,
  });
  // The template's last session may still be exiting on the server; that is worth a short wait.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.pool.query(
        empty
          ? `CREATE DATABASE ${name}`
          : `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE} STRATEGY FILE_COPY`,
      );
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
  const url = withDatabase(adminUrl, name);
  const handle = connect({
    url,
    poolSize,
    applicationName: 'test',
    idleInTransactionTimeoutMs: 60_000,
  });
  afterFile(async () => {
    await handle.close();
    await admin.pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  });
  return { ...handle, url, name };
}
