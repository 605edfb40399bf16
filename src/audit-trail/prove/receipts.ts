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

/** A stored event as a receipt shows it (`extra`): its type and payload. */
export type ReceiptEntry = Parameters<typeof receiptReadable>[0];

/**
 * An event's receipt (issue 67): a C2SP tlog-proof that it is in the log tree, against the newest
 * published head with the quorum's cosignatures, its entry (the redacted event) as `extra`.
 * Undefined: no such event in the space, or `readable` refuses it (sealed or not: nothing is
 * told); 'pending': not yet in such a head.
 */
export async function eventReceipt(
  db: Kysely<Database>,
  heads: ReceiptHeads,
  event: {
    readonly spaceId: string;
    readonly which: Parameters<typeof findLeaf>[2];
    /** Whether the reader may see it; absent: it may (the route decided who reads). */
    readonly readable?: (entry: ReceiptEntry) => boolean;
  },
  nowMs: number,
): Promise<string | 'pending' | undefined> {
  const rule = event.readable;
  const readable = rule ? (entry: Buffer) => rule(entryOf(entry)) : undefined;
  const leaf = await findLeaf(db, event.spaceId, event.which, 'log', undefined, readable);
  if (!leaf) return undefined;
  const head = await findTreeHead(db, LOG_TREE, {
    signedBefore: logHeadsPublishedBefore(nowMs, heads.intervalSeconds),
    cosigned: heads.quorum,
    by: heads.witnesses,
  });
  if (!head || leaf === 'unsealed' || leaf.index >= head.size) return 'pending';
  const proof = await proveInclusion(db, LOG_TREE, leaf.index, head.size);
  return formatTlogProof({ extra: leaf.entry, index: leaf.index, proof, checkpoint: head.note });
}

const entryOf = (entry: Buffer) => JSON.parse(entry.toString('utf8')) as ReceiptEntry;

/**
 * A token's receipt: of its issuance, or of its revocation (`token-revoked`). Whose token it is
 * is read from the issuance first, always (receiptReadable).
 */
export async function tokenReceipt(
  db: Kysely<Database>,
  heads: ReceiptHeads,
  token: {
    readonly spaceId: string;
    readonly jti: string;
    readonly reader: { readonly jti: string; readonly clientId: string };
    readonly event: 'issued' | 'revoked';
  },
  nowMs: number,
): Promise<string | 'pending' | undefined> {
  const streamId = tokenStreamId(token.jti);
  const { spaceId, reader } = token;
  const readable = (entry: ReceiptEntry) => receiptReadable(entry, reader);
  if (token.event === 'issued') {
    return eventReceipt(db, heads, { spaceId, which: { streamId }, readable }, nowMs);
  }
  // A revocation: only of a token whose issuance says it is the reader's.
  const mine = (entry: Buffer) => readable(entryOf(entry));
  if (!(await findLeaf(db, spaceId, { streamId }, 'log', undefined, mine))) return undefined;
  const which = { streamId, eventType: 'token-revoked' } as const;
  return eventReceipt(db, heads, { spaceId, which, readable }, nowMs);
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
