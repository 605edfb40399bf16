import { z } from 'zod';
import { InvalidRequestError, NotFoundError } from '../../errors/errors.js';
import { TreeLeavesMissing } from '../../audit-trail/seal/tree-store.js';

/** The proof routes' queries, answers and refusals (audit-proofs.ts), as validated and documented. */

const size = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const tree = z
  .enum(['space', 'log'])
  .default('space')
  .describe("`space` (the space's own tree) or `log` (the whole log's, every space's events)");
/** GET /v1/audit/tree-head. */
export const treeHeadQuery = z.object({
  tree,
  cosigned: z.coerce
    .number()
    .int()
    .min(0)
    .max(100)
    .default(0)
    .describe('The latest head with at least this many witness cosignatures'),
});
/** GET /v1/audit/proof/inclusion. */
export const inclusionQuery = z
  .object({
    tree,
    jti: z.string().min(1).max(200).optional(),
    event_id: z.uuid().optional(),
    tree_size: size
      .optional()
      .describe(
        "Default: the latest signed head's size. Of the log tree, only a published head's size",
      ),
  })
  .refine((query) => (query.jti === undefined) !== (query.event_id === undefined), {
    message: 'give jti or event_id, one of them',
    path: ['jti'],
  });
/** GET /v1/audit/receipt: an event or a token, as in an inclusion proof; always the log tree. */
export const receiptQuery = z
  .object({ jti: z.string().min(1).max(200).optional(), event_id: z.uuid().optional() })
  .refine((query) => (query.jti === undefined) !== (query.event_id === undefined), {
    message: 'give jti or event_id, one of them',
    path: ['jti'],
  });
/** GET /v1/audit/proof/consistency (of the log tree, `to` is a published head's size). */
export const consistencyQuery = z.object({ tree, from: size, to: size });

const base64 = z.string().describe('base64 (standard alphabet, padded)');
/** A signed tree head, with its witnesses' cosignatures. */
export const treeHead = z.object({
  origin: z.string(),
  tree_size: z.number(),
  checkpoint: z.string().describe('A C2SP checkpoint, signed as a note by the audit key'),
  verifier_key: z.string().describe('The note verifier key: <name>+<key id>+<base64 key>'),
  cosignatures: z.number().describe("Witnesses' cosignature lines appended to the checkpoint"),
});
/** An inclusion proof. */
export const inclusion = z.object({
  tree_size: z.number(),
  leaf_index: z.number(),
  entry: z.string().describe("The event's canonical JSON (RFC 8785), secrets redacted: the leaf"),
  leaf_hash: base64,
  proof: z.array(base64).describe('RFC 9162 §2.1.3 inclusion proof, leaf side first'),
  checkpoint: z
    .string()
    .nullable()
    .describe(
      'The signed tree head of tree_size; null when none was signed at that size (a space tree)',
    ),
  verifier_key: z.string(),
});
/** A consistency proof. */
export const consistency = z.object({
  from: z.number(),
  to: z.number(),
  proof: z.array(base64).describe('RFC 9162 §2.1.4 consistency proof'),
});

/** A log-tree size that is no published head's: said without naming any size. */
export const notPublished = (field: 'tree_size' | 'to') =>
  new InvalidRequestError(
    `${field} must be the size of a published head of the log tree (GET /v1/audit/tree-head?tree=log)`,
    [{ field, message: 'not the size of a published log-tree head' }],
  );

/** A proof or a leaf, or 404 when it needs archived leaves this process cannot read. */
export const unlessArchived = <T>(proof: Promise<T>): Promise<T> =>
  proof.catch((error: unknown) => {
    if (!(error instanceof TreeLeavesMissing)) throw error;
    throw new NotFoundError(
      'this proof needs archived events this process cannot read (ARCHIVE_DIR unset, or a file missing or altered); verify the archive with verify-export --archive-dir',
    );
  });

/** Hashes as the proofs' JSON carries them. */
export const b64 = (hashes: readonly Buffer[]) => hashes.map((hash) => hash.toString('base64'));
