import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { spaceChainHeads } from './space-chain.js';
import { checkpointFileName, checkpointFolder, treeHeadFileName } from './checkpoint-files.js';
import { redactEvent } from './redaction.js';
import { spaceTree } from './space-tree.js';
import { treeRootAt } from './tree-growth.js';
import { TreeLeavesMissing } from './tree-store.js';
import { findTreeHead, storeTreeHead, type SignedTreeHead } from './tree-heads.js';
import { LOG_TREE, logTree, logTreeSize } from './log-tree.js';
import type { Hash } from '../transparency/merkle.js';

/** What a checkpoint signs; see src/audit-trail/audit-key.ts. */
export interface CheckpointStatement {
  readonly space_id: string;
  readonly checkpoint_number: number;
  readonly sequence: number;
  readonly head_hash: string;
  readonly previous_checkpoint: string | null;
  readonly created_at: string;
}

/** The hash a checkpoint's successor names as `previous_checkpoint`. */
export function checkpointDigest(jws: string): string {
  return createHash('sha256').update(jws).digest('hex');
}

/**
 * Signs the head of every space whose chain moved since its last checkpoint, chaining each
 * checkpoint to the one before; stores it (append-only table) and, with `dir`, writes it as a file
 * that is never rewritten (open with O_EXCL), the stand-in for write-once storage. Returns how
 * many it wrote. A replica racing us loses on the primary key and writes nothing.
 */
export async function writeCheckpoints(
  db: Kysely<Database>,
  sign: (statement: CheckpointStatement) => string,
  options: {
    readonly dir?: string;
    readonly now?: () => Date;
    /**
     * Signs a tree's head as a C2SP checkpoint (tree-heads.ts): each space tree's at its chain's
     * size, and the log tree's (tree id LOG_TREE) when it grew.
     */
    readonly signTreeHead?: (treeId: string, size: number, root: Hash) => string;
    /** Told of each signed tree head this call stored (the witnesses are sent them). */
    readonly onTreeHead?: (head: SignedTreeHead) => void;
  } = {},
): Promise<number> {
  let written = 0;
  for (const head of await spaceChainHeads(db)) {
    const last = await db
      .selectFrom('audit_checkpoints')
      .select(['checkpoint_number', 'sequence', 'jws'])
      .where('space_id', '=', head.space_id)
      .orderBy('checkpoint_number', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (last && last.sequence >= head.sequence) continue;
    const createdAt = (options.now ?? (() => new Date()))();
    const statement: CheckpointStatement = {
      space_id: head.space_id,
      checkpoint_number: (last?.checkpoint_number ?? 0) + 1,
      sequence: head.sequence,
      head_hash: head.hash.toString('hex'),
      previous_checkpoint: last ? checkpointDigest(last.jws) : null,
      created_at: createdAt.toISOString(),
    };
    const jws = sign(statement);
    const inserted = await db
      .insertInto('audit_checkpoints')
      .values({
        space_id: head.space_id,
        checkpoint_number: statement.checkpoint_number,
        sequence: statement.sequence,
        head_hash: head.hash,
        created_at: createdAt,
        jws,
      })
      .execute()
      .then(
        () => true,
        (error: { code?: string }) => {
          if (error.code === '23505') return false;
          throw error;
        },
      );
    if (!inserted) continue;
    written += 1;
    const size = Number(head.sequence);
    const root =
      options.signTreeHead &&
      (await rootIfBuilt(treeRootAt(db, spaceTree(db, head.space_id, redactEvent), size)));
    const treeHead = root && options.signTreeHead?.(head.space_id, size, root);
    if (treeHead) {
      await storeTreeHead(db, head.space_id, size, treeHead);
      options.onTreeHead?.({ treeId: head.space_id, size, note: treeHead });
    }
    if (options.dir) {
      const folder = checkpointFolder(options.dir, head.space_id);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await writeOnce(
        path.join(folder, checkpointFileName(statement.checkpoint_number)),
        `${jws}\n`,
      );
      if (treeHead) await writeOnce(path.join(folder, treeHeadFileName(size)), treeHead);
    }
  }
  if (options.signTreeHead) await signLogTreeHead(db, options.signTreeHead, options);
  return written;
}

/** Signs, stores and files the log tree's head when the log tree grew since its last one. */
async function signLogTreeHead(
  db: Kysely<Database>,
  sign: (treeId: string, size: number, root: Hash) => string,
  options: { readonly dir?: string; readonly onTreeHead?: (head: SignedTreeHead) => void },
): Promise<void> {
  const size = await logTreeSize(db);
  if (size <= ((await findTreeHead(db, LOG_TREE))?.size ?? 0)) return;
  const root = await rootIfBuilt(treeRootAt(db, logTree(db, redactEvent), size));
  if (!root) return;
  const note = sign(LOG_TREE, size, root);
  await storeTreeHead(db, LOG_TREE, size, note);
  options.onTreeHead?.({ treeId: LOG_TREE, size, note });
  if (options.dir) {
    const folder = checkpointFolder(options.dir, LOG_TREE);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await writeOnce(path.join(folder, treeHeadFileName(size)), note);
  }
}

/** A tree's root, or undefined for a tree whose unbuilt history is archived (tree-growth.ts). */
function rootIfBuilt(root: Promise<Hash>): Promise<Hash | undefined> {
  return root.catch((error: unknown) => {
    if (error instanceof TreeLeavesMissing) return undefined;
    throw error;
  });
}

/** A file written once and never rewritten (mode 444), the stand-in for write-once storage. */
async function writeOnce(file: string, content: string): Promise<void> {
  await writeFile(file, content, { flag: 'wx', mode: 0o444 }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    },
  );
}

/** A space's signed checkpoints (JWS), in the order they were made. */
export async function listCheckpoints(db: Kysely<Database>, spaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('audit_checkpoints')
    .select('jws')
    .where('space_id', '=', spaceId)
    .orderBy('checkpoint_number')
    .execute();
  return rows.map((row) => row.jws);
}
