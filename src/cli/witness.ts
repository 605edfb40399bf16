/**
 * `npm run witness` (and `node dist/cli/witness.js` in the image): the audit-log package's witness
 * program (packages/audit-log/src/witness/main.ts), run as it is.
 */
import '#audit-log/witness/main.js';
