import {
  startEmbeddedPostgres as startPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from '#embedded-postgres/embedded-postgres.js';

export type { EmbeddedPostgres };

/** Shared folder for what the `postgres` user must reach when the project folder is root-only. */
const STAGING_ROOT = '/var/tmp/token-authority-pg';

/** The service's embedded Postgres, staged as root in its own folder under /var/tmp. */
export function startEmbeddedPostgres(
  options: Omit<EmbeddedPostgresOptions, 'stagingRoot'>,
): Promise<EmbeddedPostgres> {
  return startPostgres({ ...options, stagingRoot: STAGING_ROOT });
}
