import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import type { AuditKey } from '../../audit-trail/audit-key.js';
import {
  findTreeHead,
  logHeadsPublishedBefore,
  treeOrigin,
  treeVerifierKey,
} from '../../audit-trail/prove/tree-heads.js';
import { LOG_TREE } from '../../audit-trail/seal/log-tree.js';
import {
  findLeaf,
  proveConsistency,
  proveInclusion,
  sealedTreeSize,
} from '../../audit-trail/prove/tree-proofs.js';
import { eventReceipt, type ReceiptHeads } from '../../audit-trail/prove/receipts.js';
import { tokenStreamId } from '../../domain/streams.js';
import { onlyPublishedHeads, readableTree, type TreeChoice } from '../../domain/policy.js';
import { createProofReadBudget } from '../../limits/proof-reads.js';
import { InvalidRequestError, NotFoundError } from '../../errors/errors.js';
import { ASKED, AUDIT_READ_ROUTE, budgetedAuditReadRecorder } from '../audit-read.js';
import { answerNoStore, answerText } from '../respond.js';
import { route, type Authenticated, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import {
  b64,
  consistency,
  consistencyQuery,
  inclusion,
  inclusionQuery,
  notPublished,
  receiptQuery,
  treeHead,
  treeHeadQuery,
  unlessArchived,
} from './audit-proof-shapes.js';

const read = {
  ...AUDIT_READ_ROUTE,
  description:
    'The read is recorded as an audit-log-read event when asked, before anything is looked up (rows_returned 0, complete false). Each user has AUDIT_PROOF_READS_PER_MINUTE proof reads a minute per API process (429 past it).',
  errors: ['not_found', 'rate_limited'],
} as const;

/** The settings the proof routes read, named as in the environment (src/config). */
export interface AuditProofSettings {
  /** The trees' origins are named from it. */
  readonly TOKEN_ISSUER: string;
  /** When this process can read it, proofs over archived events come from there. */
  readonly ARCHIVE_DIR?: string;
  /** The log tree's heads are published once a window of this many seconds. */
  readonly AUDIT_CHECKPOINT_INTERVAL_SECONDS: number;
  /** Each user's proof reads a minute, in this process. */
  readonly AUDIT_PROOF_READS_PER_MINUTE: number;
  /** Users the budget remembers at most. */
  readonly LIMITER_MAX_KEYS: number;
}

/**
 * The transparency log of a space, questioned one token at a time: its signed tree head, the
 * inclusion proof of one event (or of a token's issuance, by jti) and the consistency proof between
 * two sizes, each checkable offline with `npm run verify-proof` and the head's verifier key.
 */
export function auditProofRoutes(
  commands: CommandContext,
  db: Kysely<Database>,
  auditKey: Pick<AuditKey, 'publicKey'>,
  settings: AuditProofSettings,
  /** What an auditor's receipts are proven against: as a token holder's (receipts.ts). */
  heads: ReceiptHeads,
): readonly Route[] {
  const { TOKEN_ISSUER: issuer, ARCHIVE_DIR: archiveDir } = settings;
  // Spent and recorded before anything is looked up: a read that never finishes is still on the
  // trail, and one user cannot queue more lookups than the budget allows.
  const budget = createProofReadBudget({
    perMinute: settings.AUDIT_PROOF_READS_PER_MINUTE,
    maxKeys: settings.LIMITER_MAX_KEYS,
    now: () => commands.clock.now(),
  });
  const record = budgetedAuditReadRecorder(commands, budget);
  // Which tree a space's reader is served, and at which heads, is the policy's (readableTree).
  const begin = async (
    ctx: RequestContext,
    who: Authenticated['login'],
    tree: TreeChoice,
    kind: Parameters<typeof record>[2]['kind'],
    query: Record<string, string>,
  ) => {
    const treeId = readableTree(tree, who.spaceId).spaceId ?? LOG_TREE;
    await record(ctx, who, { kind, query: { tree, ...query }, ...ASKED });
    return treeId;
  };
  const verifierOf = (treeId: string) => treeVerifierKey(auditKey, treeOrigin(issuer, treeId));
  const signedBefore = (choice: TreeChoice) =>
    onlyPublishedHeads(choice)
      ? logHeadsPublishedBefore(commands.clock.now(), settings.AUDIT_CHECKPOINT_INTERVAL_SECONDS)
      : undefined;
  return [
    route('get', '/v1/audit/tree-head', 'space-read', {
      ...read,
      operationId: 'auditTreeHead',
      summary: "The space's latest signed tree head (a C2SP checkpoint)",
      query: treeHeadQuery,
      responses: [{ status: 200, description: 'The head', schema: treeHead }],
      async handle(ctx, who, { query }) {
        const treeId = await begin(ctx, who, query.tree, 'tree-head', {
          cosigned: String(query.cosigned),
        });
        const head = await findTreeHead(db, treeId, {
          cosigned: query.cosigned,
          signedBefore: signedBefore(query.tree),
        });
        if (!head) {
          throw new NotFoundError(
            query.cosigned > 0
              ? `no signed tree head with ${query.cosigned} cosignatures yet (AUDIT_WITNESSES)`
              : 'no signed tree head yet: the projector signs one within AUDIT_CHECKPOINT_INTERVAL_SECONDS of the first sealed event',
          );
        }
        answerNoStore(ctx, {
          origin: treeOrigin(issuer, treeId),
          tree_size: head.size,
          checkpoint: head.note,
          verifier_key: verifierOf(treeId),
          cosignatures: head.cosignatures,
        } satisfies z.infer<typeof treeHead>);
      },
    }),
    route('get', '/v1/audit/proof/inclusion', 'space-read', {
      ...read,
      operationId: 'auditInclusionProof',
      summary: 'That an event, or a token (by jti), is in the space tree of a given size',
      query: inclusionQuery,
      responses: [{ status: 200, description: 'The proof', schema: inclusion }],
      async handle(ctx, who, { query }) {
        const treeId = await begin(ctx, who, query.tree, 'inclusion-proof', {
          ...(query.jti ? { jti: query.jti } : { event_id: query.event_id! }),
          tree_size: query.tree_size === undefined ? 'latest' : String(query.tree_size),
        });
        const published = signedBefore(query.tree);
        // The log tree only at a published head's size: any other would answer how big it is now.
        const head =
          query.tree_size === undefined || published
            ? await findTreeHead(db, treeId, { size: query.tree_size, signedBefore: published })
            : undefined;
        if (published && query.tree_size !== undefined && !head) throw notPublished('tree_size');
        const treeSize = query.tree_size ?? head?.size ?? 0;
        const leaf = await unlessArchived(
          findLeaf(
            db,
            who.spaceId,
            query.jti !== undefined
              ? { streamId: tokenStreamId(query.jti) }
              : { eventId: query.event_id! },
            query.tree,
            archiveDir,
          ),
        );
        if (!leaf) throw new NotFoundError('this space has no such event or token');
        if (leaf === 'unsealed' || leaf.index >= treeSize) {
          throw new NotFoundError(
            'recorded, but not yet in a signed tree head of that size: ask again after the next one (GET /v1/audit/tree-head)',
          );
        }
        if (!published && treeSize > (await sealedTreeSize(db, treeId))) {
          throw new InvalidRequestError('tree_size is larger than the space tree', [
            { field: 'tree_size', message: 'larger than the tree' },
          ]);
        }
        const signed = head ?? (await findTreeHead(db, treeId, { size: treeSize }));
        answerNoStore(ctx, {
          tree_size: treeSize,
          leaf_index: leaf.index,
          entry: leaf.entry.toString('utf8'),
          leaf_hash: leaf.hash.toString('base64'),
          proof: b64(
            await unlessArchived(proveInclusion(db, treeId, leaf.index, treeSize, archiveDir)),
          ),
          checkpoint: signed?.note ?? null,
          verifier_key: verifierOf(treeId),
        } satisfies z.infer<typeof inclusion>);
      },
    }),
    route('get', '/v1/audit/receipt', 'space-read', {
      ...read,
      operationId: 'auditReceipt',
      summary: 'Any event of the space, or a token (by jti), as a receipt (a C2SP tlog-proof)',
      description: `${read.description} The receipt is what \`GET /v1/token/receipt\` gives a token's holder, for anything the space recorded (a consent, a revocation, a credential): the event as stored, redacted, its inclusion proof in the log tree and the newest published checkpoint cosigned by the quorum; \`npm run verify-proof -- receipt.tlog-proof --policy=policy.txt\` checks it offline. 404 until the event is in such a head.`,
      query: receiptQuery,
      responses: [{ status: 200, description: 'The tlog-proof', mediaType: 'text/plain' }],
      errors: ['invalid_request', ...read.errors],
      async handle(ctx, who, { query }) {
        const which =
          query.jti !== undefined
            ? { streamId: tokenStreamId(query.jti) }
            : { eventId: query.event_id! };
        await begin(ctx, who, 'log', 'inclusion-proof', {
          ...(query.jti ? { jti: query.jti } : { event_id: query.event_id! }),
          format: 'tlog-proof',
        });
        const spaceId = who.spaceId;
        const now = commands.clock.now();
        const made = await eventReceipt(db, heads, { spaceId, which }, now);
        if (made === undefined) throw new NotFoundError('this space has no such event or token');
        if (made === 'pending') {
          throw new NotFoundError(
            'recorded, but not yet in a published checkpoint cosigned by the quorum: ask again later',
          );
        }
        answerText(ctx, made, 'no-store');
      },
    }),
    route('get', '/v1/audit/proof/consistency', 'space-read', {
      ...read,
      operationId: 'auditConsistencyProof',
      summary: 'That the space tree of size `to` extends the one of size `from`, nothing changed',
      query: consistencyQuery,
      responses: [{ status: 200, description: 'The proof', schema: consistency }],
      async handle(ctx, who, { query }) {
        const treeId = await begin(ctx, who, query.tree, 'consistency-proof', {
          from: String(query.from),
          to: String(query.to),
        });
        const published = signedBefore(query.tree);
        if (published) {
          const head = await findTreeHead(db, treeId, { size: query.to, signedBefore: published });
          if (!head || query.from > query.to) throw notPublished('to');
        }
        const sealed = published ? query.to : await sealedTreeSize(db, treeId);
        if (query.from > query.to || query.to > sealed) {
          throw new InvalidRequestError(`need 1 <= from <= to <= ${sealed} (the tree's size)`, [
            { field: 'to', message: `at most ${sealed}, and not below from` },
          ]);
        }
        answerNoStore(ctx, {
          from: query.from,
          to: query.to,
          proof: b64(
            await unlessArchived(proveConsistency(db, treeId, query.from, query.to, archiveDir)),
          ),
        } satisfies z.infer<typeof consistency>);
      },
    }),
  ];
}
