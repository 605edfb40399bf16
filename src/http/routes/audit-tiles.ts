import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import { logTileAt, publishedLogHead, readLogTile } from '../../audit-trail/prove/log-tiles.js';
import { NotFoundError } from '../../errors/errors.js';
import { BuildTurns } from '../build-turns.js';
import { route, type Route } from '../route.js';

// Level-0 tiles are hashed from their events: a few at a time, each once, then held (8 KiB each).
const TURNS = { maxWaiting: 16, maxWaitingPerSpace: 16, share: 0.25, maxWaitMs: 5000 };
const TILES_HELD = 4096;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The log tree as public C2SP tlog-tiles (issue 67): its newest published checkpoint, and its
 * tiles up to it, hashes only (a leaf is the digest of a redacted event: nothing of a tenant).
 * Safe behind a CDN: a tile never changes; the checkpoint moves once per checkpoint window,
 * never with each event, so no one reads live counts here either.
 */
export function auditTileRoutes(
  commands: Pick<CommandContext, 'clock'>,
  db: Kysely<Database>,
  settings: { readonly AUDIT_CHECKPOINT_INTERVAL_SECONDS: number },
): readonly Route[] {
  const turns = new BuildTurns<Buffer | undefined>(TURNS);
  const held = new BoundedCache<string, Buffer>(TILES_HELD);
  // The published head is the one a checkpoint window ends with (onlyPublishedHeads): read once
  // per window, so no one reads the log's live size here either.
  const interval = settings.AUDIT_CHECKPOINT_INTERVAL_SECONDS;
  let published: { window: number; head: ReturnType<typeof publishedLogHead> } | undefined;
  const head = () => {
    const window = Math.floor(commands.clock.now() / (interval * 1000));
    if (published?.window !== window) {
      const reading = publishedLogHead(db, commands.clock.now(), interval);
      published = { window, head: reading };
      // A failed read is not kept for the window.
      reading.catch(() => {
        if (published?.head === reading) published = undefined;
      });
    }
    return published.head;
  };
  const tilePath = z.object({ tile: z.string().max(100) });
  return [
    route('get', '/audit/log/checkpoint', 'public', {
      operationId: 'logCheckpoint',
      tag: 'Verification',
      summary: "The log tree's newest published checkpoint (C2SP tlog-tiles), with cosignatures",
      description:
        "A C2SP checkpoint signed by the audit key (origin `<issuer host>/audit/log`), with its witnesses' cosignatures: the head every tile below is read against. It moves once per `AUDIT_CHECKPOINT_INTERVAL_SECONDS` window. 404 before the first head.",
      responses: [{ status: 200, description: 'The signed note', mediaType: 'text/plain' }],
      errors: ['not_found'],
      async handle(ctx) {
        const signed = await head();
        if (!signed) throw new NotFoundError('no checkpoint of the log tree is published yet');
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.set('Cache-Control', 'public, max-age=5');
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = signed.note;
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
        const signed = await head();
        const tile = logTileAt(params.tile, signed?.size ?? 0);
        if (!tile) {
          throw new NotFoundError(
            'no such tile up to the published checkpoint: tile/<L>/<N>[.p/<W>], written canonically',
          );
        }
        const key = params.tile;
        let hashes = held.get(key);
        if (!hashes) {
          hashes = await turns.run('log', key, () => readLogTile(db, tile));
          if (!hashes)
            throw new NotFoundError("that tile's leaves are archived (below the minimum index)");
          held.set(key, hashes);
        }
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.set('Cache-Control', IMMUTABLE);
        ctx.type = 'application/octet-stream';
        ctx.body = hashes;
      },
    }),
  ];
}
