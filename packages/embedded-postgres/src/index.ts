// The one front door: the launcher and the types its caller writes.
export {
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from './embedded-postgres.js';
export type { EmbeddedPostgresLogger } from './logger.js';
