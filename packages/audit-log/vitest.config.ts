import { defineConfig } from 'vitest/config';

// The package's own tests, run alone from here (`npx vitest run --root packages/audit-log`) or
// as the root's `audit-log` project: no database, no service.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
