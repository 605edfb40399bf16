import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import { logTileAt, publishedLogHead, readLogTile } from '../../audit-trail/prove/log-tiles.js';
import { NotFoundError } from '../../errors/errors.js';
import { BuildTurns } from '../build-turns.js';
import { answerText } from '../respond.js';
import { route, type Route } from '../route.js';

// Level-0 tiles are hashed from their events: a few at a time, each once, then held (8 KiB each).
const TURNS = { maxWaiting: 16, maxWaitingPerSpace: 16, share: 0.25, maxWaitMs: 5000 };
const TILES_HELD = 4096;
const IMMUTABLE = 'public, max-age=31536000, immutable';
const HEAD_READ_MS = 5000;

/**
 * The log tree as public C2SP tlog-tiles (issue 67): its newest published checkpoint, and its
 * tiles up to it, hashes only (a leaf is the digest of a redacted event: nothing of a tenant).
 * Safe behind a CDN: a tile never changes; the checkpoint moves once per checkpoint window,
 * never with each event, so no one reads live counts here either.
 */
export function auditTileRoutes(
  commands: Pick<CommandContext, 'clock'>,
  db: Kysely<Database>,
  settings: {
    readonly AUDIT_CHECKPOINT_INTERVAL_SECONDS: number;
    /** The log's C2SP tlog-policy text (receipts.ts, `logPolicy`). */
    readonly policy: string;
  },
): readonly Route[] {
  const turns = new BuildTurns<Buffer | undefined>(TURNS);
  const held = new BoundedCache<string, Buffer>(TILES_HELD);
  // The published head (onlyPublishedHeads: signed before this checkpoint window) read again
  // at most every 5 s, so a head committed late in its window is seen within seconds.
  const interval = settings.AUDIT_CHECKPOINT_INTERVAL_SECONDS;
  let published: { at: number; head: ReturnType<typeof publishedLogHead> } | undefined;
  const head = () => {
    const now = commands.clock.now();
    const at = Math.floor(now / HEAD_READ_MS);
    if (published?.at !== at) {
      const reading = publishedLogHead(db, now, interval);
      published = { at, head: reading };
      // A failed read is not kept.
      reading.catch(() => {
        if (published?.head === reading) published = undefined;
      });
    }
    return published.head;
  };
  const tilePath = z.object({ tile: z.string().max(100) });
  return [
    route('get', '/audit/log/policy', 'public', {
      operationId: 'logPolicy',
      tag: 'Verification',
      summary: "The log's trust policy (C2SP tlog-policy): its key, its witnesses, the quorum",
      description:
        'What an offline verifier of a receipt (a C2SP tlog-proof) trusts: `log <verifier key> <prefix URL>`, a `witness` line per `AUDIT_WITNESSES` entry, and `quorum` (`AUDIT_WITNESS_QUORUM` of them, or `none`). Compare the log key with the one derived from the audit public key once (`npm run note-key -- --log`).',
      responses: [{ status: 200, description: 'The policy', mediaType: 'text/plain' }],
      errors: [],
      async handle(ctx) {
        ctx.set('Access-Control-Allow-Origin', '*');
        answerText(ctx, settings.policy, 'public, max-age=300');
      },
    }),
    route('get', '/audit/log/checkpoint', 'public', {
      operationId: 'logCheckpoint',
      tag: 'Verification',
      summary: "The log tree's newest published checkpoint (C2SP tlog-tiles), with cosignatures",
      description:
        "A C2SP checkpoint signed by the audit key (origin `<issuer host>/audit/log`), with its witnesses' cosignatures: the head every tile below is read against. It moves once per `AUDIT_CHECKPOINT_INTERVAL_SECONDS` window. 404 before the first head.",
      responses: [{ status: 200, description: 'The signed note', mediaType: 'text/plain' }],
      errors: ['not_found'],
      async handle(ctx) {
        ctx.set('Access-Control-Allow-Origin', '*');
        const signed = await head();
        if (!signed) throw new NotFoundError('no checkpoint of the log tree is published yet');
        answerText(ctx, signed.note, 'public, max-age=5');
      },
    }),
    route('get', '/audit/log/tile/*tile', 'public', {
      operationId: 'logTile',
      tag: 'Verification',
      summary: 'A tile of the log tree (C2SP tlog-tiles): 32-byte hashes, immutable',
      description:
        "`tile/<L>/<N>[.p/<W>]` as C2SP tlog-tiles writes it (`N` in 3-digit groups, all but the last `x`-prefixed). Level 0 holds leaf hashes (each the SHA-256 of `0x00` and a redacted event), level L ≥ 1 the roots of full tiles below. Served up to the published checkpoint only; 404 for a tile beyond it, a path not written canonically, or leaves archived (below the log's minimum index). Entry bundles are not served: a log reader sees hashes only.",
      params: tilePath,
      responses: [{ status: 200, description: 'The tile', mediaType: 'application/octet-stream' }],
      errors: ['invalid_request', 'not_found'],
      async handle(ctx, _auth, { params }) {
        // A browser monitor reads the 404 too (to fall back from a partial tile to the full one).
        ctx.set('Access-Control-Allow-Origin', '*');
        const signed = await head();
        const tile = await logTileAt(db, params.tile, signed?.size ?? 0);
        // One tile, one path: not a percent-encoded spelling of it (a CDN would keep each).
        if (!tile || ctx.path !== `/audit/log/tile/${params.tile}`) {
          throw new NotFoundError(
            'no such tile up to the published checkpoint: tile/<L>/<N>[.p/<W>], written canonically, a partial one only as wide as a signed head left it',
          );
        }
        const key = params.tile;
        let hashes = held.get(key);
        if (!hashes) {
          // Level 0 is hashed from its events, taking turns; above, one range read of stored roots.
          hashes =
            tile.level === 0
              ? await turns.run('log', key, () => readLogTile(db, tile))
              : await readLogTile(db, tile);
          if (!hashes) {
            throw new NotFoundError(
              "that tile is not held: its leaves are archived (below the log's minimum index)",
            );
          }
          held.set(key, hashes);
        }
        ctx.set('Cache-Control', IMMUTABLE);
        ctx.type = 'application/octet-stream';
        ctx.body = hashes;
      },
    }),
  ];
}
