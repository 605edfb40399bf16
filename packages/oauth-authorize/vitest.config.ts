import { defineConfig } from 'vitest/config';

// The package's own tests, run alone from here (`npx vitest run --root packages/oauth-authorize`)
// or as the root's `oauth-authorize` project: no token service, no database.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
