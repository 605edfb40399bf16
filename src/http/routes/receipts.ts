import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.js';
import { eventReceipt, tokenReceipt, type ReceiptHeads } from '../../audit-trail/prove/receipts.js';
import { readAuthorization } from '../../commands/authorization/steps.js';
import type { AuthorizationPorts } from '../../commands/authorization/requests.js';
import { streams } from '../../domain/streams.js';
import { consentReceiptReadable } from '../../domain/policy.js';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import { NotFoundError } from '../../errors/errors.js';
import { BuildTurns } from '../build-turns.js';
import { answerText } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { requestIdSchema } from './authorization-requests.js';

// Proofs are read a few at a time per space, as the status lists are built; a receipt once
// made serves a minute (it stays true for ever; a later one is proven against a later head).
const TURNS = { maxWaiting: 32, maxWaitingPerSpace: 4, share: 0.25, maxWaitMs: 10_000 };
const HELD = 10_000;
const HELD_MS = 60_000;

const query = z.object({
  jti: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{1,64}$/,
      "expected the jti of a public token this token bought, or of its client's private token",
    )
    .optional(),
  event: z.enum(['issued', 'revoked']).default('issued'),
});
const consentQuery = z.object({ event: z.enum(['accepted', 'revoked']).default('accepted') });
const consentPath = z.object({ consent_id: requestIdSchema });
const CONSENT_EVENTS = {
  accepted: 'authorization-accepted',
  revoked: 'authorization-consent-revoked',
} as const;

/**
 * GET /v1/token/receipt: the client that holds a private token gets the proof that it was logged
 * (a C2SP tlog-proof) to keep beside it and check offline against `/audit/log/policy` (issue 67),
 * and, with `?jti=`, that of a public token it bought. A receipt shows its issuance event as
 * stored: the request's metadata included (the buyer's own address), so never to a public
 * token's bearer in a browser.
 */
export function receiptRoutes(
  commands: AuthorizationPorts,
  db: Kysely<Database>,
  heads: ReceiptHeads,
): readonly Route[] {
  const turns = new BuildTurns<string | 'pending' | undefined>(TURNS);
  const held = new BoundedCache<string, { readonly at: number; readonly receipt: string }>(HELD);
  /** A receipt made once, kept a minute; 404 while there is none to give. */
  const answer = async (
    ctx: RequestContext,
    spaceId: string,
    key: string,
    make: () => Promise<string | 'pending' | undefined>,
    none: string,
  ) => {
    let receipt = held.get(key);
    if (!receipt || commands.clock.now() - receipt.at > HELD_MS) {
      const made = await turns.run(spaceId, key, make);
      if (made === undefined) throw new NotFoundError(none);
      if (made === 'pending') {
        throw new NotFoundError(
          'logged, but not yet in a published checkpoint cosigned by the quorum: ask again later',
        );
      }
      receipt = { at: commands.clock.now(), receipt: made };
      held.set(key, receipt);
    }
    answerText(ctx, receipt.receipt, 'no-store');
  };
  return [
    route('get', '/v1/token/receipt', 'private-token', {
      operationId: 'tokenReceipt',
      tag: 'Verification',
      summary: "A token's receipt: a C2SP tlog-proof that its issuance (or revocation) is logged",
      description:
        "With a private token (DPoP-bound ones with their proof), its own receipt; with `?jti=`, that of a public token it bought or of an earlier private token of its client; with `event=revoked`, that of the token's revocation instead of its issuance. The answer (`text/plain`, save it as `.tlog-proof`) holds the event as stored, redacted (`extra`), its index and inclusion proof in the log tree, and the newest published checkpoint cosigned by the quorum; `npm run verify-proof -- receipt.tlog-proof --policy=policy.txt --jti=<jti>` checks it offline. 404 for a token that is not the caller's, a token not revoked, and until the event is in a published head (within two checkpoint windows).",
      query,
      responses: [{ status: 200, description: 'The tlog-proof', mediaType: 'text/plain' }],
      errors: ['invalid_request', 'invalid_token', 'not_found'],
      async handle(ctx, { privateToken }, { query: { jti, event } }) {
        const spaceId = privateToken.space_id;
        const reader = { jti: privateToken.jti, clientId: privateToken.client_id };
        const token = { spaceId, jti: jti ?? privateToken.jti, reader, event };
        await answer(
          ctx,
          spaceId,
          `token ${spaceId} ${token.jti} ${event} ${privateToken.jti}`,
          () => tokenReceipt(db, heads, token, commands.clock.now()),
          event === 'revoked'
            ? "no revocation of such a token of this client is logged (a token revoked with its private token or consent has none of its own: that revocation's receipt proves it)"
            : 'no such token of this client is logged',
        );
      },
    }),
    route('get', '/v1/consents/:consent_id/receipt', 'private-token', {
      operationId: 'consentReceipt',
      tag: 'Authorization',
      summary: "A consent's receipt: a C2SP tlog-proof that it was given (or withdrawn)",
      description:
        "For the storefront client that accepted the consent: the receipt of the customer's acceptance (`authorization-accepted`, default) or, with `event=revoked`, of its withdrawal, as `GET /v1/token/receipt` makes them; `npm run verify-proof -- receipt.tlog-proof --policy=policy.txt` checks it offline. 404 for a consent this client did not accept, an event not recorded, and until it is in a published head.",
      params: consentPath,
      query: consentQuery,
      responses: [{ status: 200, description: 'The tlog-proof', mediaType: 'text/plain' }],
      errors: ['invalid_request', 'invalid_token', 'insufficient_scope', 'not_found'],
      async handle(ctx, { privateToken }, { params, query: { event } }) {
        const spaceId = privateToken.space_id;
        const consentId = params.consent_id;
        // Of its space and a storefront's (or refused as the consent pages refuse it), then
        // the one that accepted it.
        const clientId = privateToken.client_id;
        const { consent } = await readAuthorization(commands, spaceId, consentId, { clientId });
        if (!consentReceiptReadable(consent, clientId)) {
          throw new NotFoundError('this storefront accepted no such consent');
        }
        const streamId = streams.authorizationRequest(consentId).streamId;
        const eventType = CONSENT_EVENTS[event];
        await answer(
          ctx,
          spaceId,
          `consent ${spaceId} ${consentId} ${event}`,
          () =>
            eventReceipt(
              db,
              heads,
              { spaceId, which: { streamId, eventType } },
              commands.clock.now(),
            ),
          event === 'revoked'
            ? 'this consent has not been withdrawn'
            : 'this consent has not been given',
        );
      },
    }),
  ];
}
