/**
 * CI's proof that the testcontainers path checks something: a Postgres container that never
 * answers makes startTestPostgres fail within its startup timeout, instead of a test run that
 * hangs or quietly falls back to another Postgres. Run by .ci/run with TEST_POSTGRES_IMAGE set to
 * an image whose entrypoint only sleeps; exits 0 when the start was refused, 1 otherwise.
 */
import { startTestPostgres } from '../support/postgres-source.js';

const started = Date.now();
try {
  const postgres = await startTestPostgres();
  await postgres.stop();
  console.error(`a Postgres that never answers was taken as started (${postgres.source})`);
  process.exit(1);
} catch (error) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`never-answering Postgres refused after ${seconds} s: ${(error as Error).message}`);
}
