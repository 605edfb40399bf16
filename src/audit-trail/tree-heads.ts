import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { checkpointText } from '../transparency/checkpoint.js';
import type { Hash } from '../transparency/merkle.js';
import {
  noteSigner,
  noteVerifier,
  signNote,
  verifierKeyText,
} from '../transparency/signed-note.js';
import type { KeyObject } from 'node:crypto';

/** The audit key's halves (audit-key.ts), as far as tree heads need them. */
interface AuditKeyPair {
  readonly publicKey: KeyObject;
  readonly privateKey?: KeyObject;
}

/**
 * A space tree's origin, the first line of its checkpoints: the issuer without its scheme, then
 * `/audit/space/<id>` (C2SP: a schema-less URL naming the log).
 */
export function treeOrigin(issuer: string, spaceId: string): string {
  const url = new URL(issuer);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/audit/space/${encodeURIComponent(spaceId)}`;
}

/** The note verifier key of a space tree's checkpoints: the audit key, named for the origin. */
export function treeVerifierKey(key: Pick<AuditKeyPair, 'publicKey'>, origin: string): string {
  return verifierKeyText(noteVerifier(origin, key.publicKey));
}

/** A space tree's signed checkpoint (a C2SP note by the audit key). */
export function signTreeHead(key: AuditKeyPair, origin: string, size: number, root: Hash): string {
  if (!key.privateKey) throw new Error('this audit key has no private half');
  return signNote(checkpointText({ origin, size, root }), [noteSigner(origin, key.privateKey)]);
}

/** Keeps a signed tree head (a replica that signed the same size first wins; both are valid). */
export async function storeTreeHead(
  db: Kysely<Database>,
  spaceId: string,
  size: number,
  note: string,
): Promise<void> {
  await db
    .insertInto('merkle_checkpoints')
    .values({ space_id: spaceId, tree_size: size, note })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

/** The space's latest signed tree head, or the one of exactly `size` leaves. */
export async function findTreeHead(
  db: Kysely<Database>,
  spaceId: string,
  size?: number,
): Promise<{ size: number; note: string } | undefined> {
  const row = await db
    .selectFrom('merkle_checkpoints')
    .select(['tree_size', 'note'])
    .where('space_id', '=', spaceId)
    .$if(size !== undefined, (query) => query.where('tree_size', '=', size!))
    .orderBy('tree_size', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { size: Number(row.tree_size), note: row.note } : undefined;
}
