import { defineConfig } from 'vitest/config';

// The signer's own tests that need no HSM, run alone from here (`npx vitest run --root
// packages/pkcs11-signer`) or as the root's `pkcs11-signer` project. Those against SoftHSM2 are
// the service's `hsm` project.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], pool: 'forks' },
});
