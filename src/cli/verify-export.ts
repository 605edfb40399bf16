/**
 * `npm run verify-export -- <file.ndjson>` (or the export on stdin): checks an audit export
 * offline, with no database: each event must hash to its link, and consecutive links must chain.
 * Prints the verdict as JSON; exit code 0 when it verifies, 1 when not.
 */
import { readFile } from 'node:fs/promises';
import { verifyExportLines } from '../event-store/export-chain.js';

const file = process.argv[2];
const text = file && file !== '-' ? await readFile(file, 'utf8') : await readStdin();
const verdict = verifyExportLines(text.split('\n'));
console.log(JSON.stringify(verdict));
process.exitCode = verdict.ok ? 0 : 1;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
