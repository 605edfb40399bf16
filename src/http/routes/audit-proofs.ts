import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import type { AuditKey } from '../../audit-trail/audit-key.js';
import { redactEvent } from '../../audit-trail/redaction.js';
import { findTreeHead, treeOrigin, treeVerifierKey } from '../../audit-trail/tree-heads.js';
import { LOG_TREE } from '../../audit-trail/log-tree.js';
import { TreeLeavesMissing } from '../../audit-trail/tree-store.js';
import {
  findLeaf,
  proveConsistency,
  proveInclusion,
  sealedTreeSize,
} from '../../audit-trail/tree-proofs.js';
import { streams } from '../../domain/streams.js';
import { InvalidRequestError, NotFoundError } from '../../errors/errors.js';
import { AUDIT_READ_ROUTE, auditReadRecorder } from '../audit-read.js';
import { LOGIN_ERRORS } from '../openapi/operation.js';
import { route, type Route } from '../route.js';
import { validate } from '../validate.js';

const size = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const tree = z
  .enum(['space', 'log'])
  .default('space')
  .describe("`space` (the space's own tree) or `log` (the whole log's, every space's events)");
const treeHeadQuery = z.object({
  tree,
  cosigned: z.coerce
    .number()
    .int()
    .min(0)
    .max(100)
    .default(0)
    .describe('The latest head with at least this many witness cosignatures'),
});
const inclusionQuery = z
  .object({
    tree,
    jti: z.string().min(1).max(200).optional(),
    event_id: z.uuid().optional(),
    tree_size: size.optional(),
  })
  .refine((query) => (query.jti === undefined) !== (query.event_id === undefined), {
    message: 'give jti or event_id, one of them',
    path: ['jti'],
  });
const consistencyQuery = z.object({ tree, from: size, to: size });

const base64 = z.string().describe('base64 (standard alphabet, padded)');
const treeHead = z.object({
  origin: z.string(),
  tree_size: z.number(),
  checkpoint: z.string().describe('A C2SP checkpoint, signed as a note by the audit key'),
  verifier_key: z.string().describe('The note verifier key: <name>+<key id>+<base64 key>'),
  cosignatures: z.number().describe("Witnesses' cosignature lines appended to the checkpoint"),
});
const inclusion = z.object({
  tree_size: z.number(),
  leaf_index: z.number(),
  entry: z.string().describe("The event's canonical JSON (RFC 8785), secrets redacted: the leaf"),
  leaf_hash: base64,
  proof: z.array(base64).describe('RFC 9162 §2.1.3 inclusion proof, leaf side first'),
  checkpoint: z
    .string()
    .nullable()
    .describe('The signed tree head of tree_size, if one was signed'),
  verifier_key: z.string(),
});
const consistency = z.object({
  from: z.number(),
  to: z.number(),
  proof: z.array(base64).describe('RFC 9162 §2.1.4 consistency proof'),
});

const read = { ...AUDIT_READ_ROUTE, errors: [...LOGIN_ERRORS, 'not_found'] } as const;

/** A proof, or 404 when it needs archived leaves this process cannot read. */
const unlessArchived = (proof: Promise<Buffer[]>) =>
  proof.catch((error: unknown) => {
    if (!(error instanceof TreeLeavesMissing)) throw error;
    throw new NotFoundError(
      'this proof needs archived events this process cannot read (ARCHIVE_DIR unset, or a file missing or altered); verify the archive with verify-export --archive-dir',
    );
  });

const b64 = (hashes: readonly Buffer[]) => hashes.map((hash) => hash.toString('base64'));

/**
 * The transparency log of a space, questioned one token at a time: its signed tree head, the
 * inclusion proof of one event (or of a token's issuance, by jti) and the consistency proof between
 * two sizes, each checkable offline with `npm run verify-proof` and the head's verifier key.
 */
export function auditProofRoutes(
  commands: CommandContext,
  db: Kysely<Database>,
  auditKey: Pick<AuditKey, 'publicKey'>,
  issuer: string,
  /** ARCHIVE_DIR, when this process can read it: proofs over archived events come from there. */
  archiveDir?: string,
): readonly Route[] {
  const record = auditReadRecorder(commands);
  const verifierOf = (treeId: string) => treeVerifierKey(auditKey, treeOrigin(issuer, treeId));
  // The log tree is every space's events: a space's login reads its heads and proofs (hashes only;
  // an entry is only ever one of the reader's own space's events).
  const treeIdOf = (choice: 'space' | 'log', spaceId: string) =>
    choice === 'log' ? LOG_TREE : spaceId;
  return [
    route({
      ...read,
      method: 'get',
      path: '/v1/audit/tree-head',
      operationId: 'auditTreeHead',
      summary: "The space's latest signed tree head (a C2SP checkpoint)",
      query: treeHeadQuery,
      responses: [{ status: 200, description: 'The head', schema: treeHead }],
      async handle(ctx, who) {
        const query = validate(treeHeadQuery, ctx.query, 'query');
        const treeId = treeIdOf(query.tree, who.spaceId);
        const head = await findTreeHead(db, treeId, { cosigned: query.cosigned });
        await record(ctx, who, {
          kind: 'tree-head',
          query: { tree: query.tree, cosigned: String(query.cosigned) },
          rows_returned: head ? 1 : 0,
          complete: true,
        });
        if (!head) {
          throw new NotFoundError(
            query.cosigned > 0
              ? `no signed tree head with ${query.cosigned} cosignatures yet (AUDIT_WITNESSES)`
              : 'no signed tree head yet: the projector signs one within AUDIT_CHECKPOINT_INTERVAL_SECONDS of the first sealed event',
          );
        }
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          origin: treeOrigin(issuer, treeId),
          tree_size: head.size,
          checkpoint: head.note,
          verifier_key: verifierOf(treeId),
          cosignatures: head.cosignatures,
        } satisfies z.infer<typeof treeHead>;
      },
    }),
    route({
      ...read,
      method: 'get',
      path: '/v1/audit/proof/inclusion',
      operationId: 'auditInclusionProof',
      summary: 'That an event, or a token (by jti), is in the space tree of a given size',
      query: inclusionQuery,
      responses: [{ status: 200, description: 'The proof', schema: inclusion }],
      async handle(ctx, who) {
        const query = validate(inclusionQuery, ctx.query, 'query');
        const treeId = treeIdOf(query.tree, who.spaceId);
        const head = query.tree_size === undefined ? await findTreeHead(db, treeId) : undefined;
        const treeSize = query.tree_size ?? head?.size ?? 0;
        const leaf = await findLeaf(
          db,
          who.spaceId,
          query.jti !== undefined
            ? { streamId: streams.token(query.jti) }
            : { eventId: query.event_id! },
          redactEvent,
          query.tree,
          archiveDir,
        );
        await record(ctx, who, {
          kind: 'inclusion-proof',
          query: {
            tree: query.tree,
            ...(query.jti ? { jti: query.jti } : { event_id: query.event_id! }),
            tree_size: String(treeSize),
          },
          rows_returned: leaf && leaf !== 'unsealed' ? 1 : 0,
          complete: true,
        });
        if (!leaf) throw new NotFoundError('this space has no such event or token');
        if (leaf === 'unsealed' || leaf.index >= treeSize) {
          throw new NotFoundError(
            'recorded, but not yet in a signed tree head of that size: ask again after the next one (GET /v1/audit/tree-head)',
          );
        }
        if (treeSize > (await sealedTreeSize(db, treeId))) {
          throw new InvalidRequestError('tree_size is larger than the space tree', [
            { field: 'tree_size', message: 'larger than the tree' },
          ]);
        }
        const signed = head ?? (await findTreeHead(db, treeId, { size: treeSize }));
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          tree_size: treeSize,
          leaf_index: leaf.index,
          entry: leaf.entry.toString('utf8'),
          leaf_hash: leaf.hash.toString('base64'),
          proof: b64(
            await unlessArchived(
              proveInclusion(db, treeId, leaf.index, treeSize, redactEvent, archiveDir),
            ),
          ),
          checkpoint: signed?.note ?? null,
          verifier_key: verifierOf(treeId),
        } satisfies z.infer<typeof inclusion>;
      },
    }),
    route({
      ...read,
      method: 'get',
      path: '/v1/audit/proof/consistency',
      operationId: 'auditConsistencyProof',
      summary: 'That the space tree of size `to` extends the one of size `from`, nothing changed',
      query: consistencyQuery,
      responses: [{ status: 200, description: 'The proof', schema: consistency }],
      async handle(ctx, who) {
        const query = validate(consistencyQuery, ctx.query, 'query');
        const treeId = treeIdOf(query.tree, who.spaceId);
        const sealed = await sealedTreeSize(db, treeId);
        await record(ctx, who, {
          kind: 'consistency-proof',
          query: { tree: query.tree, from: String(query.from), to: String(query.to) },
          rows_returned: 1,
          complete: true,
        });
        if (query.from > query.to || query.to > sealed) {
          throw new InvalidRequestError(`need 1 <= from <= to <= ${sealed} (the tree's size)`, [
            { field: 'to', message: `at most ${sealed}, and not below from` },
          ]);
        }
        ctx.set('Cache-Control', 'no-store');
        ctx.body = {
          from: query.from,
          to: query.to,
          proof: b64(
            await unlessArchived(
              proveConsistency(db, treeId, query.from, query.to, redactEvent, archiveDir),
            ),
          ),
        } satisfies z.infer<typeof consistency>;
      },
    }),
  ];
}
