/**
 * Starts the test Postgres the way global-setup does, prints which source it came from as JSON,
 * and stops it: test/integration/event-log/postgres-source.test.ts runs it with each source's settings.
 */
import { startTestPostgres } from './postgres-source.js';

const postgres = await startTestPostgres();
console.log(JSON.stringify({ source: postgres.source, detail: postgres.detail }));
await postgres.stop();
