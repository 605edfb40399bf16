import { checkExport } from '#audit-log/check/export.js';
import { EVENT_LEAVES } from '../../src/audit-trail/event-leaf.js';

/**
 * An export's lines checked offline as `npm run verify-export` checks them, without the audit key
 * or witnesses (a tail not yet under a signed head accepted): the leaves and trees alone.
 */
export function checkExportLeaves(lines: readonly string[]) {
  return checkExport(lines, {
    leaves: EVENT_LEAVES,
    allowUnanchoredTail: true,
    witnesses: [],
    minCosignatures: 0,
    allowUnwitnessedTail: true,
  });
}
