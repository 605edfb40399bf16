/**
 * `npm run note-key -- --key=<audit public JWK file> --issuer=<TOKEN_ISSUER> [--space=<id> | --log]`:
 * the note verifier key of a tree's signed heads, computed offline from the audit key's public half.
 * A reviewer or a witness operator derives it from the key the security team hands over, instead
 * of trusting the `verifier_key` the service itself serves.
 */
import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LOG_TREE } from '../audit-trail/seal/log-tree.js';
import { treeOrigin, treeVerifierKey } from '#audit-log/transparency/tree-head.js';
import { parseCommandLine } from '#settings/command-line.js';
import { usageExit } from './config-exit.js';

const USAGE = `Usage: npm run note-key -- --key=<audit public JWK file> --issuer=<TOKEN_ISSUER> (--space=<id> | --log)
Prints the note verifier key (<origin>+<key id>+<key>) of a space tree's or the log tree's signed
heads. The same Ed25519 audit key signs every tree, named for the tree's origin, so the key id
differs per tree.`;

const { values } = parseCommandLine(USAGE, {
  key: { type: 'string' },
  issuer: { type: 'string' },
  space: { type: 'string' },
  log: { type: 'boolean', default: false },
});
if (!values.key || !values.issuer || (values.space === undefined) === !values.log) usageExit(USAGE);
try {
  const jwk = JSON.parse(await readFile(values.key, 'utf8')) as Record<string, unknown>;
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') throw new Error('not an Ed25519 public JWK');
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: String(jwk.x) },
    format: 'jwk',
  });
  const origin = treeOrigin(values.issuer, values.log ? LOG_TREE : values.space!);
  console.log(treeVerifierKey({ publicKey }, origin));
} catch (error) {
  usageExit(`note-key: ${(error as Error).message}`);
}
