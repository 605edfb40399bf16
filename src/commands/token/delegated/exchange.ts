import { clientActor } from '../../../domain/actors.js';
import { delegable } from '../../../domain/policy.js';
import type { FieldProblem } from '../../../errors/errors.js';
import { fieldsInvalid, InvalidGrantError, InvalidRequestError } from '../../../errors/errors.js';
import type { CommandContext } from '../../context.js';
import type { AuthorizationDetails } from '#verifier/actor-claim.js';
import { issueDelegatedToken } from './issue.js';
import {
  ACCESS_TOKEN_TYPE,
  asGrantError,
  requireSentClient,
  requireSubjectAudience,
  tokenResponse,
} from '../grants/answer.js';
import { JWT_TOKEN_TYPE, provenActor } from './actor.js';
import type { GrantRequest, GrantResponse } from '../grants/grant.js';
import { requestedScopes } from '../grants/scope-parameter.js';

/** The token exchange's fields delegation reads (the grant's schema checked them). */
export interface DelegationFields {
  readonly subject_token: string;
  readonly actor_token?: string | undefined;
  readonly actor_token_type?: string | undefined;
  readonly audience?: string | undefined;
  readonly resource?: string | undefined;
  readonly scope?: string | undefined;
  readonly customer_id?: string | undefined;
  readonly segment_id?: string | undefined;
  readonly dpop_jkt?: string | undefined;
  readonly may_act?: string | undefined;
  readonly authorization_details?: AuthorizationDetails | undefined;
}

/** Whether an exchange asks for delegation: it names an actor (RFC 8693 §2.1). */
export const asksDelegation = (fields: DelegationFields): boolean =>
  fields.actor_token !== undefined || fields.actor_token_type !== undefined;

/** What the subject token says and a delegation request may not say again, or otherwise. */
const FROM_SUBJECT = ['customer_id', 'segment_id', 'dpop_jkt'] as const;

/**
 * RFC 8693 delegation: an agent exchanges a customer's public token whose `may_act` names it with
 * its own token. Without `may_act` it is refused, so a plain exchange never reaches delegation.
 * `may_act` here names the next agent (re-delegation).
 */
export async function delegatedExchange(
  ctx: CommandContext,
  request: GrantRequest<DelegationFields> & { readonly spaceId: string },
): Promise<GrantResponse> {
  const { fields, client, dpop, spaceId, origin } = request;
  const subject = await asGrantError(() => ctx.verifier.verifyAny(fields.subject_token));
  if (!delegable(subject)) {
    const message =
      'delegation needs a subject_token whose may_act names the actor: send no actor_token or actor_token_type';
    throw new InvalidRequestError(message, [{ field: 'actor_token', message }]);
  }
  requireDelegationFields(fields);
  requireSubjectAudience(fields, subject);
  // A bound customer token proves nothing in an agent's hands without the customer's key.
  if (subject.cnf)
    throw new InvalidGrantError('subject_token: a DPoP-bound token is not delegated');
  const actor = await provenActor(
    ctx,
    fields.actor_token!,
    fields.actor_token_type!,
    spaceId,
    origin,
  );
  const metadata = { actor: clientActor(actor.clientId), ...origin };
  await requireSentClient(ctx, client, origin, { clientId: actor.clientId, token: 'actor_token' });
  // A bound actor token is used only with a proof by its key and its hash (RFC 9449 §4.3).
  const { claims } = actor;
  const proof = await dpop(claims && { token: fields.actor_token!, claims });
  const issued = await issueDelegatedToken(ctx, {
    spaceId,
    subject,
    actor,
    metadata,
    dpop: proof,
    scopes: requestedScopes(fields.scope),
    // RFC 8693 §4.4 asked of the exchange itself: the next agent this one allows to act.
    mayAct: fields.may_act,
    authorizationDetails: fields.authorization_details,
  });
  return tokenResponse(issued, true);
}

/** Both actor fields, the actor our access token or a JWT, and nothing the subject token already says. */
function requireDelegationFields(fields: DelegationFields): void {
  const problems: FieldProblem[] = [];
  if (fields.actor_token === undefined) {
    problems.push({ field: 'actor_token', message: 'required with actor_token_type' });
  }
  if (fields.actor_token_type !== ACCESS_TOKEN_TYPE && fields.actor_token_type !== JWT_TOKEN_TYPE) {
    const message = `must be ${ACCESS_TOKEN_TYPE} or ${JWT_TOKEN_TYPE}`;
    problems.push({ field: 'actor_token_type', message });
  }
  for (const field of FROM_SUBJECT) {
    if (fields[field] !== undefined) {
      problems.push({ field, message: 'the subject token says it; send none when delegating' });
    }
  }
  if (problems.length > 0) throw fieldsInvalid(...problems);
}
