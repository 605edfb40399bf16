/**
 * `npm run verify-proof` (and `node dist/cli/verify-proof.js` in the image): the audit-log
 * package's offline check of a saved proof answer (packages/audit-log/src/cli/verify-proof.ts,
 * its usage there), run as it is.
 */
import '#audit-log/cli/verify-proof.js';
