#!/usr/bin/env node
/**
 * `npm run verify-proof -- <answer.json> --key=<verifier key> [--old=<checkpoint file>]
 *   [--witness=<cosigner vkey> …] [--min-cosignatures=N]`, or
 * `npm run verify-proof -- <receipt.tlog-proof> --policy=<tlog-policy file> [--jti=<jti>]`:
 * a C2SP tlog-proof checked against a C2SP tlog-policy (and, with --jti, that its entry is that
 * token's issuance).
 * Checks, offline, a saved answer of GET /v1/audit/proof/inclusion (the event's entry hashes to
 * its leaf, the leaf is in the tree the signed checkpoint names) or of /v1/audit/proof/consistency
 * (with --old, the earlier signed checkpoint, and the newer one in the answer's `checkpoint` or
 * --new). --key is the log's note verifier key, obtained independently of the answer. With
 * --min-cosignatures=N each checkpoint must carry N cosignatures of distinct --witness keys (a key
 * given twice is one witness; N is at most the distinct keys). Prints a
 * verdict as JSON; exit 0 when it holds, 1 when it does not, 2 on bad usage.
 */
import { readFile } from 'node:fs/promises';
import { checkProofAnswer, isInclusionAnswer } from '../check/proof-answer.js';
import { parseVerifierKey, type NoteVerifier } from '../transparency/signed-note.js';
import { distinctWitnesses, parseCosignerKey } from '../transparency/witness-keys.js';
import { parseCommandLine } from 'token-authority-settings';
import { checkTlogProof } from '../check/tlog-proof-check.js';
import { parseTlogPolicy } from '../transparency/tlog-policy.js';

const USAGE = `Usage: npm run verify-proof -- <answer.json> --key=<log verifier key> [--old=<checkpoint>] [--new=<checkpoint>] [--witness=<cosigner vkey> ...] [--min-cosignatures=N]
   or: npm run verify-proof -- <receipt.tlog-proof> --policy=<tlog-policy file> [--jti=<jti>]`;
const { values, positionals } = parseCommandLine(USAGE, {
  key: { type: 'string' },
  policy: { type: 'string' },
  jti: { type: 'string' },
  old: { type: 'string' },
  new: { type: 'string' },
  witness: { type: 'string', multiple: true },
  'min-cosignatures': { type: 'string', default: '0' },
});
const minimum = Number(values['min-cosignatures']);
if (positionals.length === 1 && values.policy) {
  let verdict: ReturnType<typeof checkTlogProof>;
  try {
    const policy = parseTlogPolicy(await readFile(values.policy, 'utf8'));
    const text = await readFile(positionals[0]!, 'utf8');
    verdict = checkTlogProof(text, policy, values.jti ? { jti: values.jti } : {});
  } catch (error) {
    console.error(`verify-proof: ${(error as Error).message}`);
    process.exit(2);
  }
  console.log(JSON.stringify(verdict));
  process.exit(verdict.ok ? 0 : 1);
}
if (positionals.length !== 1 || !values.key || !Number.isInteger(minimum) || minimum < 0) {
  console.error(USAGE);
  process.exit(2);
}

let logKey: NoteVerifier;
let witnesses: NoteVerifier[];
let answer: Record<string, unknown>;
try {
  logKey = parseVerifierKey(values.key.trim());
  witnesses = distinctWitnesses((values.witness ?? []).map(parseCosignerKey));
  if (minimum > witnesses.length) {
    throw new Error(
      `--min-cosignatures: at most the distinct --witness keys given (${witnesses.length})`,
    );
  }
  answer = JSON.parse(await readFile(positionals[0]!, 'utf8')) as Record<string, unknown>;
} catch (error) {
  console.error(`verify-proof: ${(error as Error).message}`);
  process.exit(2);
}

const signers = { logKey, witnesses, minimum };
const verdict = isInclusionAnswer(answer)
  ? checkProofAnswer(answer, signers)
  : checkProofAnswer(answer, signers, {
      old: values.old && (await readFile(values.old, 'utf8')),
      ...(values.new ? { new: await readFile(values.new, 'utf8') } : {}),
    });
console.log(JSON.stringify(verdict));
process.exit(verdict.ok ? 0 : 1);
