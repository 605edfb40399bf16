/**
 * `npm run verify-export -- [--key=<audit public key JWK file>] <export.ndjson | ->`: checks an
 * audit export offline, with no database. Every event must hash to its link in the space's chain,
 * sequence numbers must run without gaps and in order, and with --key every checkpoint must be
 * signed by the audit key, chained to the one before, and match the exported link it names (a
 * checkpoint past the last event means events were cut from the end). Prints the verdict as
 * JSON; exit 0 when it verifies, 1 when not (naming what and where), 2 on bad usage.
 */
import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { verifyExportLines } from '../audit-trail/verify-export.js';
import { readCheckpointStatement, verifyCheckpoint } from '../audit-trail/audit-key.js';
import { progressOnStderr } from './progress.js';
import { parseCommandLine } from './args.js';

const USAGE = `Usage: npm run verify-export -- [--key=<audit-public-key.jwk>] [--] <export.ndjson | ->
Verifies an audit export (GET /v1/audit/export) offline; "-" reads it from stdin. The key is the
public_key of GET /v1/audit/checkpoints, kept where the database's owners cannot change it.`;
const { values, positionals } = parseCommandLine(USAGE, { key: { type: 'string' } });
const file = positionals[0];
if (!file) {
  console.error(USAGE);
  process.exit(2);
}
const publicKey = values.key
  ? createPublicKey({ key: JSON.parse(await readFile(values.key, 'utf8')) as never, format: 'jwk' })
  : undefined;
if (!publicKey) {
  process.stderr.write('no --key: checkpoints are read but their signatures are not checked\n');
}
const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
const lines = text.split('\n');
const progress = progressOnStderr('verify-export', { total: lines.length, unit: 'lines' });
const verdict = verifyExportLines(
  lines,
  publicKey ? (jws) => verifyCheckpoint(publicKey, jws) : undefined,
  readCheckpointStatement,
  (line) => progress.update(line),
);
progress.finish(verdict.ok ? lines.length : verdict.line);
console.log(JSON.stringify(verdict));
process.exitCode = verdict.ok ? 0 : 1;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
