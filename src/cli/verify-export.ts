/**
 * `npm run verify-export -- <file.ndjson>` (or `-` for the export on stdin): checks an audit
 * export offline, with no database: each event must hash to its link, and consecutive links must
 * chain. Prints the verdict as JSON; exit code 0 when it verifies, 1 when not, 2 on bad usage.
 */
import { readFile } from 'node:fs/promises';
import { verifyExportLines } from '../event-store/export-chain.js';
import { exitWithUsageIfAsked } from './runtime.js';

const USAGE = `Usage: npm run verify-export -- <export.ndjson | ->
Verifies an audit export (GET /v1/audit/export) offline; "-" reads it from stdin.`;
exitWithUsageIfAsked(USAGE);
const file = process.argv[2];
if (!file) {
  console.error(USAGE);
  process.exit(2);
}
const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
const verdict = verifyExportLines(text.split('\n'));
console.log(JSON.stringify(verdict));
process.exitCode = verdict.ok ? 0 : 1;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
