import { z } from 'zod';
import { newCode, readCode } from '#oauth-authorize/secrets.js';
import { clientActor } from '../../../domain/actors.js';
import { decideRefresh, decideUndoRefresh } from '../../../domain/authorization/consent.js';
import { refusedAs, type AuthorizationRefusal } from '../../../domain/authorization/decide.js';
import { secondsOf } from '../../../domain/times.js';
import {
  InvalidGrantError,
  InvalidScopeError,
  InvalidTargetError,
} from '../../../errors/errors.js';
import type { Refusals } from '../../handle.js';
import { onRequest, readRequest } from '../../authorization/requests.js';
import { defineGrant } from '../grants/grant.js';
import { requestedScopes, scopeParameter } from '../grants/scope-parameter.js';
import { requireSentClient } from '../grants/answer.js';
import { issueOnConsent, otherResource } from './authorization-code.js';

const field = z.string().min(1, 'must not be empty');

/** OAuth 2.1 §4.3.1's request: the refresh token, its client, and perhaps fewer scopes. */
const refreshTokenSchema = z.object({
  refresh_token: field.max(200),
  client_id: field.max(512),
  scope: scopeParameter,
  resource: field.max(4096).optional(),
});

const invalid = (description: string) => () => new InvalidGrantError(description);
const NOT_GOOD = invalid(
  "the refresh token is not good: unknown, replaced, revoked, or not this client's",
);
const refused = (): never => {
  throw NOT_GOOD();
};
const REFRESH_REFUSED: Refusals<AuthorizationRefusal, object> = refusedAs(NOT_GOOD, {
  other_resource: () => new InvalidTargetError('resource', 'is not the resource of the consent'),
  widened: () => new InvalidScopeError('a refresh may ask only for scopes the consent granted'),
  other_key: invalid(
    'the refresh token is bound to the DPoP key the code was redeemed with: send a proof by that key',
  ),
  consent_ended: invalid('the consent has ended: the customer must consent again'),
  refresh_reused: invalid(
    'the refresh token was replaced before: the consent is revoked, with every token it bought',
  ),
});

/**
 * The refresh token grant: a consent's next token, and the refresh token that replaces the one
 * sent. The swap is recorded first (its stream's version check lets one replica win); a refresh
 * whose issuance then failed has spent its token, so the client holds the new one it never saw
 * and starts again, erring toward the customer. Budgets per agent and customer apply as to every
 * delegated token.
 */
export const refreshTokenGrant = defineGrant({
  grantType: 'refresh_token',
  summary:
    "OAuth 2.1 §4.3: a consent's refresh token for its next delegated token; rotated, a reuse revokes the consent",
  clientAuthentication: 'when-sent',
  publicClients: true,
  space: 'none',
  schema: refreshTokenSchema,
  issues: 'public-token-issued',
  async handle(ctx, { fields, client, dpop, origin }) {
    const sent = readCode(fields.refresh_token) ?? refused();
    const held = (await readRequest(ctx, sent.requestId)) ?? refused();
    const { spaceId, asked } = held;
    const words = requestedScopes(fields.scope);
    // An empty scope asks for nothing less: the consent's scopes, as when it is absent.
    const scopes = words && words.length > 0 ? words : undefined;
    await requireSentClient(ctx, client, origin, {
      clientId: asked.client_id,
      token: 'refresh token',
    });
    const metadata = { actor: clientActor(fields.client_id), ...origin };
    const now = secondsOf(ctx.clock.now());
    const proof = await dpop();
    const next = newCode(sent.requestId);
    const refreshed = await onRequest(
      ctx,
      {
        requestId: sent.requestId,
        spaceId,
        now,
        eventId: ctx.ids.eventId(),
        metadata,
        secret: sent.secret,
        clientId: fields.client_id,
        jkt: proof?.jkt,
        next: next.digest,
        otherResource: otherResource(ctx, fields.resource, asked.resource),
        scopes,
      },
      decideRefresh,
      REFRESH_REFUSED,
      held,
    );
    try {
      return await issueOnConsent(ctx, {
        requestId: sent.requestId,
        request: refreshed.facts.request,
        now,
        metadata,
        dpop: proof,
        refreshToken: next.code,
        scopes,
      });
    } catch (error) {
      // Not issued (a budget, the database): the token the client holds stands again, so its
      // retry is no reuse. If even this fails, the client starts the flow again.
      const undo = { requestId: sent.requestId, spaceId, now, metadata, next: next.digest };
      await onRequest(
        ctx,
        { ...undo, eventId: ctx.ids.eventId() },
        decideUndoRefresh,
        REFRESH_REFUSED,
      ).catch(() => undefined);
      throw error;
    }
  },
});
