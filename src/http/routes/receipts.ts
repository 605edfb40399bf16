import type { Kysely } from 'kysely';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import { tokenReceipt, type ReceiptHeads } from '../../audit-trail/prove/receipts.js';
import { InvalidTokenError, NotFoundError } from '../../errors/errors.js';
import { presentedToken } from '../dpop.js';
import { route, type Route } from '../route.js';

/**
 * GET /v1/token/receipt: whoever holds a token gets the proof that its issuance was logged (a
 * C2SP tlog-proof), to keep beside it and check offline against `/audit/log/policy`, with no
 * account (issue 67). The token is the credential: it reveals its own issuance event alone.
 */
export function receiptRoutes(
  commands: Pick<CommandContext, 'verifier' | 'clock'>,
  db: Kysely<Database>,
  heads: ReceiptHeads,
): readonly Route[] {
  return [
    route('get', '/v1/token/receipt', 'public', {
      operationId: 'tokenReceipt',
      tag: 'Verification',
      summary: "A token's receipt: a C2SP tlog-proof that its issuance is in the log tree",
      description:
        '`Authorization: Bearer <the token>` (or `DPoP <the token>`: no proof is needed to read its own receipt), while it is valid. The answer (`text/plain`, save it as `.tlog-proof`) holds the issuance event as stored, redacted (`extra`), its index and inclusion proof in the log tree, and the newest published checkpoint cosigned by the quorum; `npm run verify-proof -- receipt.tlog-proof --policy=policy.txt --jti=<jti>` checks it offline. 404 until the issuance is in a published head (within two checkpoint windows).',
      responses: [{ status: 200, description: 'The tlog-proof', mediaType: 'text/plain' }],
      errors: ['invalid_token', 'not_found'],
      async handle(ctx) {
        const { token } = presentedToken(ctx);
        const claims = await commands.verifier.verifyAny(token).catch(() => undefined);
        if (!claims) throw new InvalidTokenError('not a valid token of this service');
        const receipt = await tokenReceipt(
          db,
          heads,
          { spaceId: claims.space_id, jti: claims.jti },
          commands.clock.now(),
        );
        if (receipt === undefined) throw new NotFoundError('no issuance of this token is logged');
        if (receipt === 'pending') {
          throw new NotFoundError(
            'logged, but not yet in a published checkpoint: ask again after the next window',
          );
        }
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = receipt;
      },
    }),
  ];
}
