import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The package's own tests, run alone from here (`npx vitest run --root packages/audit-log`) or
// as the root's `audit-log` project: no database, no service.
export default defineConfig({
  // settings from its sources, as the root's tsconfig paths give tsx and tsc.
  resolve: {
    alias: {
      'token-authority-settings': fileURLToPath(
        new URL('../settings/src/index.ts', import.meta.url),
      ),
    },
  },
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
