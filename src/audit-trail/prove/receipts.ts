import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { tokenStreamId } from '../../domain/streams.js';
import { receiptReadable } from '../../domain/policy.js';
import { LOG_TREE, treeOrigin, treeVerifierKey } from '#audit-log/transparency/tree-head.js';
import { formatTlogProof } from '#audit-log/transparency/tlog-proof.js';
import { formatTlogPolicy } from '#audit-log/transparency/tlog-policy.js';
import { verifierKeyText } from '#audit-log/transparency/signed-note.js';
import { distinctWitnesses } from '#audit-log/transparency/witness-keys.js';
import type { AuditKey } from '../audit-key.js';
import type { WitnessEndpoint } from '#audit-log/witness/endpoints.js';
import { findTreeHead, logHeadsPublishedBefore } from './tree-heads.js';
import { findLeaf, proveInclusion } from './tree-proofs.js';

/** What a receipt is proven against: published heads, cosigned by the quorum. */
export interface ReceiptHeads {
  readonly intervalSeconds: number;
  readonly quorum: number;
  /** The witnesses the published policy names (their key names): only theirs count. */
  readonly witnesses: readonly string[];
}

/**
 * A token's receipt (issue 67): a C2SP tlog-proof that its issuance event is in the log tree,
 * against the newest published head with the quorum's cosignatures, its entry (the redacted
 * event) as `extra`. `boughtBy`: the token must be a public token that private token bought.
 * Undefined: no such token in the space; 'pending': not yet in such a head.
 */
export async function tokenReceipt(
  db: Kysely<Database>,
  heads: ReceiptHeads,
  token: { readonly spaceId: string; readonly jti: string; readonly boughtBy?: string },
  nowMs: number,
): Promise<string | 'pending' | undefined> {
  const leaf = await findLeaf(db, token.spaceId, { streamId: tokenStreamId(token.jti) }, 'log');
  if (!leaf) return undefined;
  if (leaf !== 'unsealed') {
    const entry = JSON.parse(leaf.entry.toString('utf8')) as Parameters<typeof receiptReadable>[0];
    const reader = { jti: token.boughtBy ?? token.jti, own: token.boughtBy === undefined };
    if (!receiptReadable(entry, reader)) return undefined;
  }
  const head = await findTreeHead(db, LOG_TREE, {
    signedBefore: logHeadsPublishedBefore(nowMs, heads.intervalSeconds),
    cosigned: heads.quorum,
    by: heads.witnesses,
  });
  if (!head || leaf === 'unsealed' || leaf.index >= head.size) return 'pending';
  const proof = await proveInclusion(db, LOG_TREE, leaf.index, head.size);
  return formatTlogProof({ extra: leaf.entry, index: leaf.index, proof, checkpoint: head.note });
}

/** The log's C2SP tlog-policy: its key, its witnesses, the quorum of them a checkpoint needs. */
export function logPolicy(
  auditKey: Pick<AuditKey, 'publicKey'>,
  issuer: string,
  witnesses: readonly WitnessEndpoint[],
  quorum: number,
): string {
  const origin = treeOrigin(issuer, LOG_TREE);
  // A key listed twice is one witness (distinctWitnesses), as a verifier counts it.
  const distinct = distinctWitnesses(witnesses.map(({ key }) => key));
  return formatTlogPolicy({
    log: treeVerifierKey(auditKey, origin),
    logUrl: `${issuer.replace(/\/+$/, '')}/audit/log`,
    witnesses: distinct.map((key, i) => ({ name: `w${i + 1}`, key: verifierKeyText(key) })),
    quorum: Math.min(quorum, distinct.length),
  });
}
