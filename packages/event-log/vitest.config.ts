import { defineConfig } from 'vitest/config';

// The log's own tests, run alone from here (`npx vitest run --root packages/event-log`) or as the
// root's `event-log` project: no token service, no database (a stand-in driver answers).
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
