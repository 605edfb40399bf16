import { issuedTo, mayTarget } from '../../../domain/policy.js';
import type { EventMetadata } from '../../../domain/events.js';
import {
  InsufficientScopeError,
  InvalidGrantError,
  InvalidTargetError,
  InvalidTokenError,
} from '../../../errors/errors.js';
import type { CommandContext } from '../../context.js';
import { atEndpoint, identifyClient } from '../../client-authentication/identify.js';
import type { ClientProof } from '../../client-authentication/proof.js';
import type { IssuedToken } from '../issuance.js';
import type { GrantResponse } from './grant.js';

/** RFC 8693 §3: the type of what is exchanged and what is issued. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * What is wrong with a presented token (`subject_token`, `actor_token`) is invalid_grant (RFC 6749
 * §5.2), not invalid_token: RFC 8693 §2.2.2 names invalid_request, but clients of this service
 * already handle invalid_grant.
 */
export async function asGrantError<T>(run: () => Promise<T>, field = 'subject_token'): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidTokenError || error instanceof InsufficientScopeError) {
      throw new InvalidGrantError(`${field}: ${error.message}`);
    }
    throw error;
  }
}

/** RFC 8693 §2.2.2: a public token is for its subject token's audience alone (`also` says more). */
export function requireSubjectAudience(
  fields: { readonly audience?: string | undefined; readonly resource?: string | undefined },
  subject: { readonly aud: string },
  also = '',
): void {
  for (const asked of [fields.audience, fields.resource]) {
    if (asked !== undefined && !mayTarget(subject, asked)) {
      throw new InvalidTargetError(
        asked,
        `is not the subject token's audience ("${subject.aud}")${also}`,
      );
    }
  }
}

/** Client authentication, when sent, must name the client the presented token was issued to. */
export async function requireSentClient(
  ctx: CommandContext,
  client: ClientProof | undefined,
  origin: Omit<EventMetadata, 'actor'>,
  issued: { readonly clientId: string; readonly token: string },
): Promise<void> {
  if (!client) return;
  const credential = await identifyClient(ctx, { as: 'client', proof: client }, atEndpoint(origin));
  if (!issuedTo(issued, credential.clientId)) {
    throw new InvalidGrantError(`the ${issued.token} was issued to another client`);
  }
}

const EXCHANGED = { issued_token_type: ACCESS_TOKEN_TYPE };

/** RFC 6749 §5.1's token response; an exchange's (RFC 8693 §2.2.1) names the issued type too. */
export function tokenResponse(issued: IssuedToken, exchanged = false): GrantResponse {
  return {
    body: {
      access_token: issued.token,
      ...(exchanged ? EXCHANGED : undefined),
      token_type: issued.tokenType,
      expires_in: issued.expiresIn,
      ...(issued.scope ? { scope: issued.scope } : {}),
    },
    rateLimit: issued.rateLimit,
  };
}
