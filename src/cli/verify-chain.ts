/**
 * `npm run verify-chain`: checks the Merkle log over the whole database (src/audit-trail/check/log-tree.ts): every
 * leaf recomputed from the events, the root at each signed head's size held to the head (signed by
 * the audit key, and each head file in AUDIT_CHECKPOINT_DIR found in the database), archived
 * partitions read back from ARCHIVE_DIR. Names the first range or head that does not match. Exit
 * code 0 when intact, 1 when not. (The name stays: a reviewer verifies the evidence with it.)
 */
import path from 'node:path';
import { checkLogTreeInDatabase } from '../audit-trail/prove/log-tree-evidence.js';
import { loadAuditPublicKey } from '../audit-trail/audit-key.js';
import { readTreeHeadFiles } from '../audit-trail/seal/head-files.js';
import { LOG_TREE } from '../audit-trail/seal/log-tree.js';
import { progressOnStderr } from './progress.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit, exitOnConfigError } from './config-exit.js';
import { parseCommandLine } from './args.js';

parseCommandLine(
  `Usage: npm run verify-chain
Recomputes the log's Merkle tree from every event (and ARCHIVE_DIR's files) and holds it to each
signed tree head (the audit key; the head files in AUDIT_CHECKPOINT_DIR); names the first sealed
range or head that does not match.`,
  {},
);
const config = configOrExit('worker');
const logger = createLogger({ LOG_LEVEL: 'warn' }, 'verify-chain');
// The public half only (AUDIT_PUBLIC_KEY, or DATA_DIR's file): a reviewer needs no private key.
const auditKey = await loadAuditPublicKey(config.AUDIT_PUBLIC_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
const database = await openDatabase(config, logger, 'token-authority-verify-chain', 2, {
  timeouts: 'background',
});
const { sealed } = await database.handle.db
  .selectFrom('log_seals')
  .select((eb) => eb.fn.coalesce(eb.fn.max<number>('tree_size'), eb.lit(0)).as('sealed'))
  .executeTakeFirstOrThrow();
const progress = progressOnStderr('verify-chain', { total: Number(sealed), unit: 'events' });
const verdict = await checkLogTreeInDatabase(database.handle.db, {
  publicKey: auditKey.publicKey,
  headFiles: await readTreeHeadFiles(
    config.AUDIT_CHECKPOINT_DIR ?? path.resolve(config.DATA_DIR, 'audit-checkpoints'),
    LOG_TREE,
  ),
  archiveDir: config.ARCHIVE_DIR ? path.resolve(config.ARCHIVE_DIR) : undefined,
  onProgress: (checked) => progress.update(checked),
});
progress.finish(verdict.ok ? verdict.eventsChecked : 0);
console.log(JSON.stringify(verdict));
await database.close();
process.exitCode = verdict.ok ? 0 : 1;
