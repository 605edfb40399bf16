import { totalmem } from 'node:os';
import {
  startEmbeddedPostgres as startPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from '#embedded-postgres/embedded-postgres.js';

export type { EmbeddedPostgres };

/** Shared folder for what the `postgres` user must reach when the project folder is root-only. */
const STAGING_ROOT = '/var/tmp/token-authority-pg';

/**
 * Settings for a service rather than initdb's defaults (issue 68): a quarter of the memory for
 * buffers (128 MB to 1 GB), so the log's indexes stay cached as the log grows past millions of
 * events, and checkpoints spaced by 2 GB of WAL, so a bulk catch-up is not paced by them.
 */
export function serviceSettings(memoryBytes = totalmem()): Readonly<Record<string, string>> {
  const quarterMb = Math.floor(memoryBytes / 4 / 2 ** 20);
  return {
    shared_buffers: `${Math.min(1024, Math.max(128, quarterMb))}MB`,
    max_wal_size: '2GB',
  };
}

/** The service's embedded Postgres, staged as root in its own folder under /var/tmp. */
export function startEmbeddedPostgres(
  options: Omit<EmbeddedPostgresOptions, 'stagingRoot'>,
): Promise<EmbeddedPostgres> {
  const settings = { ...serviceSettings(), ...options.settings };
  return startPostgres({ ...options, settings, stagingRoot: STAGING_ROOT });
}
