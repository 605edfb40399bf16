import { defineConfig } from 'vitest/config';

// The library's own tests, run alone from here (`npx vitest run --root packages/settings`) or as
// the root's `settings` project: no token service.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
