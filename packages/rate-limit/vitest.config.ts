import { defineConfig } from 'vitest/config';

// The package's own tests, run alone from here (`npx vitest run --root packages/rate-limit`) or as
// the root's `rate-limit` project: no token service, no database.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
