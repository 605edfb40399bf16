import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Credential } from '../../domain/credential/state.js';
import { isDatabaseUnavailable } from '../../db/postgres-errors.js';
import type { CommandContext } from '../context.js';
import { dateOfSeconds, secondsOf } from '../../domain/times.js';

/** The signature algorithms a client assertion may use (discovery lists them). */
export const ASSERTION_ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'] as const;

/** A trusted issuer's assertion auth method in discovery: unregistered; Keycloak's name for it. */
export const FEDERATED_JWT = 'federated-jwt';

// A client assertion is for one request: it may live this long at most (RFC 7523 §3 "short").
const MAX_LIFETIME_SECONDS = 300;

/**
 * Whether `assertion` proves the client (RFC 7523 §3): its key and algorithm, `iss` = `sub` = its
 * id, `aud` our issuer as one string (an array or endpoint URL invites audience injection), `exp`
 * within five minutes, a `jti` never seen (across processes). Never throws for a bad assertion.
 */
export async function assertionProvesClient(
  ctx: CommandContext,
  assertion: string,
  credential: Credential | undefined,
): Promise<boolean> {
  if (!credential?.jwks) return false;
  try {
    const { payload } = await jwtVerify(assertion, createLocalJWKSet(credential.jwks), {
      issuer: credential.clientId,
      subject: credential.clientId,
      audience: ctx.issuer,
      algorithms: [...ASSERTION_ALGORITHMS],
      requiredClaims: ['exp', 'jti'],
      clockTolerance: 30,
      currentDate: new Date(ctx.clock.now()),
    });
    const now = secondsOf(ctx.clock.now());
    if (payload.aud !== ctx.issuer) return false; // one string, not an array that contains it
    if (payload.exp! - now > MAX_LIFETIME_SECONDS || typeof payload.jti !== 'string') return false;
    return await ctx.usedOnce.remember({
      spaceId: credential.spaceId,
      holder: `client:${credential.clientId}`,
      id: payload.jti,
      expiresAt: dateOfSeconds(payload.exp!),
    });
  } catch (error) {
    // A database away is the service's failure, not the client's: let it answer 503.
    if (isDatabaseUnavailable(error)) throw error;
    return false;
  }
}
