import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

// The signed tree heads as the API serves them, with their witnesses' cosignatures.

// A tree's origin and verifier key, as the API names them beside the heads (the package's).
export { treeOrigin, treeVerifierKey } from '#audit-log/transparency/tree-head.js';

/** Where published log heads end: the window start `nowMs` is in, so tenants never see live counts. */
export function logHeadsPublishedBefore(nowMs: number, intervalSeconds: number): Date {
  const windowMs = intervalSeconds * 1000;
  return new Date(Math.floor(nowMs / windowMs) * windowMs);
}

/** A tree's latest signed head (by `size`, `cosigned`, `signedBefore`), cosigned. */
export async function findTreeHead(
  db: Kysely<Database>,
  treeId: string,
  which: {
    readonly size?: number;
    readonly cosigned?: number;
    readonly signedBefore?: Date;
    /** Count only these witnesses' cosignatures (by key name): the ones a policy names. */
    readonly by?: readonly string[];
  } = {},
): Promise<{ size: number; note: string; cosignatures: number } | undefined> {
  const { size, cosigned = 0, signedBefore, by } = which;
  const row = await db
    .selectFrom('merkle_checkpoints as c')
    .select(['c.tree_size', 'c.note'])
    .where('c.space_id', '=', treeId)
    .$if(size !== undefined, (query) => query.where('c.tree_size', '=', size!))
    .$if(signedBefore !== undefined, (query) => query.where('c.signed_at', '<', signedBefore!))
    .$if(cosigned > 0, (query) =>
      query.where(
        (eb) =>
          eb
            .selectFrom('merkle_cosignatures as w')
            .select((inner) => inner.fn.countAll<number>().as('n'))
            .whereRef('w.space_id', '=', 'c.space_id')
            .whereRef('w.tree_size', '=', 'c.tree_size')
            .$if(by !== undefined, (inner) => inner.where('w.witness', 'in', [...by!, ''])),
        '>=',
        cosigned,
      ),
    )
    .orderBy('c.tree_size', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return (await withCosignatures(db, treeId, [row]))[0];
}

/** A tree's signed heads of sizes `from` through `to`, smallest first, each with its cosignatures. */
export async function listTreeHeads(
  db: Kysely<Database>,
  treeId: string,
  from: number,
  to: number,
): Promise<Array<{ size: number; note: string; cosignatures: number }>> {
  const heads = await db
    .selectFrom('merkle_checkpoints')
    .select(['tree_size', 'note'])
    .where('space_id', '=', treeId)
    .where('tree_size', '>=', from)
    .where('tree_size', '<=', to)
    .orderBy('tree_size')
    .execute();
  return withCosignatures(db, treeId, heads);
}

/** Heads (ascending sizes) with their witnesses' cosignature lines appended to the note. */
async function withCosignatures(
  db: Kysely<Database>,
  treeId: string,
  heads: ReadonlyArray<{ readonly tree_size: number; readonly note: string }>,
): Promise<Array<{ size: number; note: string; cosignatures: number }>> {
  if (heads.length === 0) return [];
  const sizes = heads.map((head) => Number(head.tree_size));
  const lines = await db
    .selectFrom('merkle_cosignatures')
    .select(['tree_size', 'line'])
    .where('space_id', '=', treeId)
    .where('tree_size', '>=', Math.min(...sizes))
    .where('tree_size', '<=', Math.max(...sizes))
    .orderBy('witness')
    .execute();
  return heads.map((head) => {
    const own = lines.filter((line) => Number(line.tree_size) === Number(head.tree_size));
    return {
      size: Number(head.tree_size),
      note: head.note + own.map((line) => line.line).join(''),
      cosignatures: own.length,
    };
  });
}
