import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The log's own tests, run alone from here (`npx vitest run --root packages/event-log`) or as the
// root's `package:event-log` project: no token service; a stand-in driver, or a Postgres of their
// own (token-authority-embedded-postgres, from its sources as the root's tsconfig paths give it).
export default defineConfig({
  resolve: {
    alias: {
      'token-authority-embedded-postgres': fileURLToPath(
        new URL('../embedded-postgres/src/index.ts', import.meta.url),
      ),
    },
  },
  test: { include: ['test/**/*.test.ts'], pool: 'forks', hookTimeout: 180_000 },
});
