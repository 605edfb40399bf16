import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import { tokenReceipt, type ReceiptHeads } from '../../audit-trail/prove/receipts.js';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import { NotFoundError } from '../../errors/errors.js';
import { BuildTurns } from '../build-turns.js';
import { route, type Route } from '../route.js';

// Proofs are read a few at a time per space, as the status lists are built; a receipt once
// made serves a minute (it stays true for ever; a later one is proven against a later head).
const TURNS = { maxWaiting: 32, maxWaitingPerSpace: 4, share: 0.25, maxWaitMs: 10_000 };
const HELD = 10_000;
const HELD_MS = 60_000;

const query = z.object({
  jti: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected the jti of a public token this token bought')
    .optional(),
});

/**
 * GET /v1/token/receipt: the client that holds a private token gets the proof that it was logged
 * (a C2SP tlog-proof) to keep beside it and check offline against `/audit/log/policy` (issue 67),
 * and, with `?jti=`, that of a public token it bought. A receipt shows its issuance event as
 * stored: the request's metadata included (the buyer's own address), so never to a public
 * token's bearer in a browser.
 */
export function receiptRoutes(
  commands: Pick<CommandContext, 'clock'>,
  db: Kysely<Database>,
  heads: ReceiptHeads,
): readonly Route[] {
  const turns = new BuildTurns<string | 'pending' | undefined>(TURNS);
  const held = new BoundedCache<string, { readonly at: number; readonly receipt: string }>(HELD);
  return [
    route('get', '/v1/token/receipt', 'private-token', {
      operationId: 'tokenReceipt',
      tag: 'Verification',
      summary: "A token's receipt: a C2SP tlog-proof that its issuance is in the log tree",
      description:
        "With a private token (DPoP-bound ones with their proof), its own receipt; with `?jti=`, that of a public token it bought. The answer (`text/plain`, save it as `.tlog-proof`) holds the issuance event as stored, redacted (`extra`), its index and inclusion proof in the log tree, and the newest published checkpoint cosigned by the quorum; `npm run verify-proof -- receipt.tlog-proof --policy=policy.txt --jti=<jti>` checks it offline. 404 for a token that is not the caller's, and until the issuance is in a published head (within two checkpoint windows).",
      query,
      responses: [{ status: 200, description: 'The tlog-proof', mediaType: 'text/plain' }],
      errors: ['invalid_token', 'not_found'],
      async handle(ctx, { privateToken }, { query: { jti } }) {
        const spaceId = privateToken.space_id;
        const token = jti
          ? { spaceId, jti, boughtBy: privateToken.jti }
          : { spaceId, jti: privateToken.jti };
        const key = `${spaceId} ${token.jti} ${privateToken.jti}`;
        let receipt = held.get(key);
        if (!receipt || commands.clock.now() - receipt.at > HELD_MS) {
          const made = await turns.run(spaceId, key, () =>
            tokenReceipt(db, heads, token, commands.clock.now()),
          );
          if (made === undefined) throw new NotFoundError('no such token of this client is logged');
          if (made === 'pending') {
            throw new NotFoundError(
              'logged, but not yet in a published checkpoint cosigned by the quorum: ask again later',
            );
          }
          receipt = { at: commands.clock.now(), receipt: made };
          held.set(key, receipt);
        }
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = receipt.receipt;
      },
    }),
  ];
}
