import { defineConfig } from 'vitest/config';

// The toolkit's own tests, run alone from here (`npx vitest run --root packages/outbound`) or as
// the root's `outbound` project: no token service, no database.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
