import { z } from 'zod';
import { newCode, readCode } from '#oauth-authorize/secrets.js';
import { clientActor } from '../../../domain/actors.js';
import { consentEndsAt, decideRedeem } from '../../../domain/authorization/consent.js';
import {
  refusedAs,
  type AuthorizationRefusal,
  type AuthorizationRequestState,
} from '../../../domain/authorization/decide.js';
import type { EventMetadata } from '../../../domain/events.js';
import type { DpopProof } from '../../../crypto/dpop.js';
import { secondsOf } from '../../../domain/times.js';
import {
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
} from '../../../errors/errors.js';
import { mustAuthenticateForGrant } from '../../../domain/policy.js';
import type { PublicTokenClaims } from '../../../crypto/access-tokens.js';
import type { CommandContext } from '../../context.js';
import type { Refusals } from '../../handle.js';
import { onRequest, readRequest } from '../../authorization/requests.js';
import { clientStanding } from '../standing.js';
import { defineGrant, type GrantRequest, type GrantResponse } from '../grants/grant.js';
import { requireSentClient, tokenResponse } from '../grants/answer.js';
import { issueDelegatedToken } from './issue.js';

/** A field of a consent grant's request: never empty. */
export const field = z.string().min(1, 'must not be empty');

/** OAuth 2.1 §4.1.3's request: the code, its PKCE verifier, the client and its redirect URI. */
const authorizationCodeSchema = z.object({
  code: field.max(200),
  code_verifier: field.max(128),
  /** A public client's; a registered one authenticates instead (RFC 6749 §4.1.3). */
  client_id: field.max(512).optional(),
  redirect_uri: field.max(4096).optional(),
  resource: field.max(4096).optional(),
});

/** RFC 6749 §5.2: a grant that does not hold, saying why. */
export const invalid = (description: string) => () => new InvalidGrantError(description);

/** A `resource` that is not the consent's, said only to whoever holds its code or refresh token. */
export const OTHER_RESOURCE = () =>
  new InvalidTargetError('resource', 'is not the resource of the consent');
const NOT_GOOD = invalid(
  "the code is not good: unknown, expired, used, or not this client's, redirect_uri's or code_verifier's",
);
const REDEEM_REFUSED: Refusals<AuthorizationRefusal, object> = refusedAs(NOT_GOOD, {
  other_resource: OTHER_RESOURCE,
  code_replayed: invalid('the code was used before: the tokens it bought are revoked'),
});

/**
 * The authorization code grant: what the customer consented to, through the storefront, becomes
 * the same delegated token a token exchange gives: `sub` the customer, `act` the agent, `aud` the
 * resource. The consent stands as a subject token would, under the request's id: a replayed code
 * revokes that id, and with it every token the code bought. Redemption is recorded first, so two
 * replicas never both issue; a code whose issuance then failed is spent (the client starts again).
 */
export const authorizationCodeGrant = defineGrant({
  grantType: 'authorization_code',
  summary:
    'OAuth 2.1 §4.1.3: the code from /authorize with its PKCE verifier, for a delegated public token',
  clientAuthentication: 'when-sent',
  publicClients: true,
  space: 'none',
  schema: authorizationCodeSchema,
  issues: 'public-token-issued',
  async handle(ctx, request) {
    const { fields } = request;
    const { held, step, proof, next } = await consentStep(
      ctx,
      request,
      fields.code,
      'code',
      NOT_GOOD,
    );
    const { asked } = held;
    const redeemed = await onRequest(
      ctx,
      {
        ...step,
        redirectUri: fields.redirect_uri,
        verifier: fields.code_verifier,
        refresh: next.digest,
        otherResource: otherResource(ctx, fields.resource, asked.resource),
      },
      decideRedeem,
      REDEEM_REFUSED,
      held,
    );
    return issueOnConsent(ctx, {
      ...step,
      request: redeemed.facts.request,
      dpop: proof,
      refreshToken: next.code,
    });
  },
});

/**
 * What both of a consent's grants do first: the secret's request read (the code and the refresh
 * token name it), the client that sent it checked when it authenticated, the DPoP proof checked
 * before anything is spent, the step's common part, and the refresh token that comes next.
 */
export async function consentStep(
  ctx: CommandContext,
  { fields, client, dpop, origin }: GrantRequest<{ readonly client_id?: string | undefined }>,
  presented: string,
  token: string,
  notGood: () => Error,
) {
  const clientId = fields.client_id ?? client?.clientId;
  if (clientId === undefined) throw new InvalidRequestError('client_id is required');
  const sent = readCode(presented);
  const held = sent && (await readRequest(ctx, sent.requestId));
  if (!sent || !held) throw notGood();
  if (!client && mustAuthenticateForGrant(held.asked.client_id)) {
    throw new InvalidClientError(
      `the ${token} is a registered client's: authenticate with its secret or keys`,
    );
  }
  await requireSentClient(ctx, client, origin, { clientId: held.asked.client_id, token });
  const proof = await dpop();
  const step = {
    requestId: sent.requestId,
    spaceId: held.spaceId,
    now: secondsOf(ctx.clock.now()),
    eventId: ctx.ids.eventId(),
    metadata: { actor: clientActor(clientId), ...origin },
    secret: sent.secret,
    clientId,
    jkt: proof?.jkt,
  };
  return { held, step, proof, next: newCode(sent.requestId) };
}

/**
 * A delegated token on a consent, for its code or a refresh: the consent stands as the subject
 * token would, its id the request's (which a reuse or a withdrawal revokes), the storefront its
 * client, its end no later than the consent's.
 */
export async function issueOnConsent(
  ctx: CommandContext,
  command: {
    readonly requestId: string;
    readonly request: AuthorizationRequestState;
    readonly now: number;
    readonly metadata: EventMetadata;
    readonly dpop: DpopProof | undefined;
    readonly refreshToken: string;
    /** Some of the consent's scopes (RFC 6749 §6); undefined: all of them. */
    readonly scopes?: readonly string[] | undefined;
  },
): Promise<GrantResponse> {
  const { request, now, requestId } = command;
  const { asked, spaceId } = request;
  const consent = request.consent!;
  const agent = asked.client_id;
  const subject: PublicTokenClaims = {
    iss: ctx.issuer,
    sub: consent.customer_id,
    aud: resourceOf(ctx, asked.resource),
    exp: Math.min(now + ctx.publicTokenTtlSeconds, consentEndsAt(request)),
    iat: now,
    jti: requestId,
    client_id: consent.accepted_by,
    space_id: spaceId,
    token_kind: 'public',
    customer_id: consent.customer_id,
    segment_id: consent.segment_id,
    parent_jti: consent.parent_jti,
    act: { sub: consent.accepted_by },
    may_act: { sub: agent },
    ...(consent.scopes.length > 0 ? { scope: consent.scopes.join(' ') } : {}),
    ...(consent.authorization_details
      ? { authorization_details: consent.authorization_details }
      : {}),
  };
  const credential = await clientStanding(ctx, spaceId, agent);
  const ends = { expiresAt: Number.POSITIVE_INFINITY, revoked: false } as const;
  const issued = await issueDelegatedToken(ctx, {
    spaceId,
    subject,
    actor: { ...ends, clientId: agent, spaceId, credential },
    metadata: command.metadata,
    dpop: command.dpop,
    scopes: command.scopes,
  });
  const answer = tokenResponse(issued);
  return { ...answer, body: { ...answer.body, refresh_token: command.refreshToken } };
}

/** Whether a `resource` sent at the token endpoint names another than the consent's. */
export const otherResource = (
  ctx: Pick<CommandContext, 'audiences'>,
  sent: string | undefined,
  asked: string | undefined,
) => sent !== undefined && sent !== resourceOf(ctx, asked);

/** The token's audience: the resource asked for (checked at /authorize), else the first audience. */
export const resourceOf = (ctx: Pick<CommandContext, 'audiences'>, resource: string | undefined) =>
  resource ?? ctx.audiences[0]!;
