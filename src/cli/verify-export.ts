/**
 * `npm run verify-export` (and `node dist/cli/verify-export.js` in the image): the audit-log
 * package's offline check of an export (packages/audit-log/src/cli/verify-export.ts, its usage
 * there), with the service's leaves (the package's leaf bound to the event catalog's redaction).
 */
import { runVerifyExport } from '#audit-log/cli/verify-export.js';
import { EVENT_LEAVES } from '../audit-trail/event-leaf.js';

await runVerifyExport(EVENT_LEAVES);
