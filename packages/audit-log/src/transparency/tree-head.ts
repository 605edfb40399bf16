import type { KeyObject } from 'node:crypto';
import { checkpointText } from './checkpoint.js';
import type { Hash } from './merkle.js';
import { noteSigner, noteVerifier, signNote, verifierKeyText } from './signed-note.js';

/**
 * The log tree's id beside the spaces' trees (token-authority's merkle_nodes and
 * merkle_checkpoints): no space id is empty.
 */
export const LOG_TREE = '';

/** A signed tree head: which tree (a space id, or LOG_TREE), its size, the signed note. */
export interface SignedTreeHead {
  readonly treeId: string;
  readonly size: number;
  readonly note: string;
}

/** The audit key's halves, as far as tree heads need them. */
interface AuditKeyPair {
  readonly publicKey: KeyObject;
  readonly privateKey?: KeyObject;
}

/**
 * A tree's origin, the first line of its checkpoints: the issuer without its scheme, then
 * `/audit/space/<id>` for a space's tree or `/audit/log` for the log tree (C2SP: a schema-less
 * URL naming the log).
 */
export function treeOrigin(issuer: string, treeId: string): string {
  const url = new URL(issuer);
  const base = `${url.host}${url.pathname.replace(/\/+$/, '')}/audit`;
  return treeId === LOG_TREE ? `${base}/log` : `${base}/space/${encodeURIComponent(treeId)}`;
}

/** The note verifier key of a tree's signed heads: the audit key, named for the origin. */
export function treeVerifierKey(key: Pick<AuditKeyPair, 'publicKey'>, origin: string): string {
  return verifierKeyText(noteVerifier(origin, key.publicKey));
}

/** A tree's signed head: a C2SP checkpoint note signed by the audit key. */
export function signTreeHead(key: AuditKeyPair, origin: string, size: number, root: Hash): string {
  if (!key.privateKey) throw new Error('this audit key has no private half');
  return signNote(checkpointText({ origin, size, root }), [noteSigner(origin, key.privateKey)]);
}
