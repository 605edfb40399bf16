import { z } from 'zod';
import { decideRefresh, decideUndoRefresh } from '../../../domain/authorization/consent.js';
import { refusedAs, type AuthorizationRefusal } from '../../../domain/authorization/decide.js';
import { InvalidScopeError } from '../../../errors/errors.js';
import type { Refusals } from '../../handle.js';
import { onRequest } from '../../authorization/requests.js';
import { defineGrant } from '../grants/grant.js';
import { requestedScopes, scopeParameter } from '../grants/scope-parameter.js';
import {
  consentStep,
  field,
  invalid,
  issueOnConsent,
  OTHER_RESOURCE,
  otherResource,
} from './authorization-code.js';

/** OAuth 2.1 §4.3.1's request: the refresh token, its client, and perhaps fewer scopes. */
const refreshTokenSchema = z.object({
  refresh_token: field.max(200),
  /** A public client's; a registered one authenticates instead. */
  client_id: field.max(512).optional(),
  scope: scopeParameter,
  resource: field.max(4096).optional(),
});

const NOT_GOOD = invalid(
  "the refresh token is not good: unknown, replaced, revoked, or not this client's",
);
const REFRESH_REFUSED: Refusals<AuthorizationRefusal, object> = refusedAs(NOT_GOOD, {
  other_resource: OTHER_RESOURCE,
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
 * whose issuance then failed is undone, so the token the client holds stands again. Budgets per agent and customer apply as to every
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
  async handle(ctx, request) {
    const { fields } = request;
    const presented = fields.refresh_token;
    const { held, step, proof, next } = await consentStep(
      ctx,
      request,
      presented,
      'refresh token',
      NOT_GOOD,
    );
    const words = requestedScopes(fields.scope);
    // An empty scope asks for nothing less: the consent's scopes, as when it is absent.
    const scopes = words && words.length > 0 ? words : undefined;
    const refreshed = await onRequest(
      ctx,
      {
        ...step,
        next: next.digest,
        otherResource: otherResource(ctx, fields.resource, held.asked.resource),
        scopes,
      },
      decideRefresh,
      REFRESH_REFUSED,
      held,
    );
    try {
      return await issueOnConsent(ctx, {
        ...step,
        request: refreshed.facts.request,
        dpop: proof,
        refreshToken: next.code,
        scopes,
      });
    } catch (error) {
      // Not issued (a budget, the database): the token the client holds stands again, so its
      // retry is no reuse. If even this fails, the client starts the flow again.
      const undo = { ...step, eventId: ctx.ids.eventId(), next: next.digest };
      await onRequest(ctx, undo, decideUndoRefresh, REFRESH_REFUSED).catch(() => undefined);
      throw error;
    }
  },
});
