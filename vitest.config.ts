import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The tiers: unit tests need nothing; integration tests share one Postgres started in
// globalSetup, and so do the process checks (`npm run test:process`); the fleet drill (`npm run test:fleet`) starts its own Patroni fleet; the container
// checks (`npm run test:containers`) need an engine and the images scripts/containers/images.sh builds.
/** Integration checks that start, kill or pack whole processes: the slowest of `npm test`. */
const PROCESS_CHECKS = [
  'test/integration/service/processes.test.ts',
  'test/integration/service/testing-entry.test.ts',
  'test/integration/service/outage.test.ts',
  'test/integration/delivery/audit-delivery-drill.test.ts',
  'test/integration/service/testcontainers-package.test.ts',
  // Pack packages alone, each into an empty project (issue 66, item 4).
  'test/integration/audit/audit-log-package.test.ts',
  'test/integration/tokens/verifier-package.test.ts',
  'test/integration/service/packages-alone.test.ts',
  'test/integration/service/api-workers.test.ts',
  'test/integration/audit/archive-empty-partition.test.ts',
  // Waits out real one-minute partitions to archive them (about two minutes on its own).
  'test/integration/audit/archive.test.ts',
  // Issue 49: API, projector and deliverer across two one-minute partition boundaries (3 minutes).
  'test/integration/event-log/partition-boundary.test.ts',
  // Kills and pauses projector processes to watch a standby take over.
  'test/integration/projector/projector.test.ts',
  'test/integration/service/cli-help.test.ts',
  // Issue 55: the token service, a storefront's server, agents and a resource server as processes.
  'test/integration/delegation/agent-processes.test.ts',
];

/**
 * The PKCS#11 signer against SoftHSM2 (`npm run test:hsm`, run by CI): they need Debian's softhsm2
 * and the optional native binding pkcs11js, which builds only with a C++ toolchain, so they are
 * kept out of a newcomer's `npm test` (which needs neither), never dropped.
 */
const HSM_CHECKS = [
  'test/unit/pkcs11-signer.test.ts',
  'test/unit/pkcs11-stuck-threads.test.ts',
  'test/integration/keys/pkcs11-signing-keys.test.ts',
  // The package packed alone, its README example signing in SoftHSM2 (issue 66, item 4).
  'test/integration/service/pkcs11-signer-package.test.ts',
];

/** The packages with tests of their own (the PKCS#11 signer's need no HSM: HSM_CHECKS do). */
const PACKAGES = new URL('./packages/', import.meta.url);
const PACKAGES_TESTED = readdirSync(PACKAGES)
  .filter((name) => existsSync(new URL(`${name}/test`, PACKAGES)))
  .sort();

/**
 * Test files at once, where a suite allows it (not the fleet, partition or container suites):
 * vitest's default on two cores is one, and most of a test's time is spent waiting on Postgres or
 * a process. Each worker gets a Postgres of its own (global-setup.ts), so DATABASE_URL, one
 * server, gets one worker; TEST_WORKERS sets the count.
 */
const WORKERS = process.env.DATABASE_URL
  ? 1
  : Number(process.env.TEST_WORKERS) || Math.min(4, Math.max(2, availableParallelism() - 1));

export default defineConfig({
  // A package importing another (audit-log takes settings' command line) gets its sources, as tsx
  // and tsc do (tsconfig.json paths): one copy of each module in a process, no build needed.
  resolve: {
    alias: [
      {
        find: /^token-authority-([a-z0-9-]+)$/,
        replacement: fileURLToPath(new URL('./packages/$1/src/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: WORKERS,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: HSM_CHECKS },
      },
      // Each package's own tests (no service; a stand-in driver where one needs Postgres), as
      // `package:<name>` (npm test runs `package:*`); also alone: `npm test -w packages/<name>`.
      ...PACKAGES_TESTED.map((name) => ({
        extends: true as const,
        test: { name: `package:${name}`, include: [`packages/${name}/test/**/*.test.ts`] },
      })),
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...PROCESS_CHECKS, ...HSM_CHECKS],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        // Whole processes started, killed and packed (`npm run test:process`, run by CI): the
        // slowest checks, kept out of a newcomer's `npm test`, never dropped.
        test: {
          name: 'process',
          include: PROCESS_CHECKS,
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'hsm', include: HSM_CHECKS, globalSetup: ['test/support/global-setup.ts'] },
      },
      {
        extends: true,
        // One fleet at a time: two would share two cores and blur the failover times.
        test: {
          name: 'fleet',
          include: ['test/fleet/**/*.test.ts'],
          testTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        // The partition drill (issue 44): the fleet in network namespaces under a nemesis; root.
        test: {
          name: 'partitions',
          include: ['test/partitions/**/*.test.ts'],
          testTimeout: 3_600_000,
          hookTimeout: 400_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        // One compose project at a time: they publish the same host port (8080).
        test: {
          name: 'containers',
          include: ['test/containers/**/*.test.ts'],
          testTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
