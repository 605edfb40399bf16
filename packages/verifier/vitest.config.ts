import { defineConfig } from 'vitest/config';

// The kit's own tests, run alone from here (`npx vitest run --root packages/verifier`) or as the
// root's `verifier` project: no token service, no database.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
