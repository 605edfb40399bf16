/**
 * `npm run verify-chain`: checks the Merkle log over the whole database (the audit-log package's
 * check/log-tree.ts): every leaf recomputed from the events (and ARCHIVE_DIR's files), the root at
 * each signed head's size held to the head and its file. Names the first range or head that does
 * not match; exit code 0 when intact, 1 when not. (The name stays: reviewers know it.)
 */
import path from 'node:path';
import { checkLogTreeInDatabase } from '../audit-trail/prove/log-tree-evidence.js';
import { loadAuditPublicKey } from '../audit-trail/audit-key.js';
import { readTreeHeadFiles } from '#audit-log/head-files.js';
import { LOG_TREE } from '../audit-trail/seal/log-tree.js';
import { progressOnStderr } from '#audit-log/cli/progress.js';
import { operatorDatabase } from './operator.js';
import { exitOnConfigError, parseCommandLine } from '#settings/command-line.js';
import { configOrExit } from './config-exit.js';
import { sql } from 'kysely';

parseCommandLine(
  `Usage: npm run verify-chain
Recomputes the log's Merkle tree from every event (and ARCHIVE_DIR's files) and holds it to each
signed tree head (the audit key; the head files in AUDIT_CHECKPOINT_DIR); names the first sealed
range or head that does not match.`,
  {},
);
const config = configOrExit('worker');
// The public half only (AUDIT_PUBLIC_KEY, or DATA_DIR's file): a reviewer needs no private key.
const auditKey = await loadAuditPublicKey(config.AUDIT_PUBLIC_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
const database = await operatorDatabase(config, 'verify-chain', 'verify-chain', { poolSize: 2 });
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
// Said, not left to `unanchoredEvents: N`: a check right after the first tokens passes with
// nothing anchored until the projector signs.
const coverage = verdict.ok ? await notYetCovered(verdict.unanchoredEvents) : undefined;
console.log(JSON.stringify(coverage ? { ...verdict, notYetCovered: coverage } : verdict));
if (coverage && coverage.events > 0) console.error(coverage.note);
await database.close();
process.exitCode = verdict.ok ? 0 : 1;

/** Events no signed head covers yet (sealed past the newest head, or not sealed), and when the next comes. */
async function notYetCovered(unanchored: number) {
  const { rows } = await sql<{ unsealed: number; last_signed: Date | null }>`
    WITH tip AS (SELECT last_transaction_id AS t, last_position AS p FROM log_seals
                 ORDER BY seal_number DESC LIMIT 1)
    SELECT (SELECT count(*)::int FROM events e
             WHERE NOT EXISTS (SELECT 1 FROM tip WHERE (e.transaction_id, e.global_position) <= (tip.t, tip.p)))
             AS unsealed,
           (SELECT max(signed_at) FROM merkle_checkpoints WHERE space_id = ${LOG_TREE}) AS last_signed`.execute(
    database.handle.db,
  );
  const { unsealed, last_signed: lastSigned } = rows[0]!;
  const every = config.AUDIT_CHECKPOINT_INTERVAL_SECONDS;
  const nextHeadBy = new Date(
    Math.max(Date.now(), (lastSigned?.getTime() ?? Date.now()) + every * 1000),
  ).toISOString();
  const events = unanchored + unsealed;
  return {
    events,
    sealedPastNewestHead: unanchored,
    notSealed: unsealed,
    nextHeadBy,
    note:
      events === 0
        ? 'every event is covered by a signed head'
        : `verify-chain: ${events} event(s) are not covered by a signed head yet (${unsealed} not sealed, ${unanchored} sealed after the newest head); the projector signs the next head every ${every} s (AUDIT_CHECKPOINT_INTERVAL_SECONDS), by about ${nextHeadBy} while it runs: check again after that to cover them`,
  };
}
