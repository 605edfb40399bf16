import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Credential } from '../../domain/credential/state.js';
import { joseRefusal } from '#verifier/refusal.js';
import type { CommandContext } from '../context.js';
import { dateOfSeconds, secondsOf } from '../../domain/times.js';

/** The signature algorithms a client assertion may use (discovery lists them). */
export const ASSERTION_ALGORITHMS = ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'] as const;

/** A trusted issuer's assertion auth method in discovery: unregistered; Keycloak's name for it. */
export const FEDERATED_JWT = 'federated-jwt';

// A client assertion is for one request: it may live this long at most (RFC 7523 §3 "short").
const MAX_LIFETIME_SECONDS = 300;

/**
 * A client assertion's `aud` (rfc7523bis): our issuer identifier as one string, whoever signed it
 * (an array, or an endpoint's URL, invites audience injection).
 */
export const audienceIsOurIssuer = (aud: unknown, issuer: string): boolean => aud === issuer;

/**
 * Whether `assertion` proves the client (RFC 7523 §3): its key and algorithm, `iss` = `sub` = its
 * id, {@link audienceIsOurIssuer}, `exp` within five minutes, a `jti` never seen (across
 * processes). A bad assertion is false, whatever jose or WebCrypto threw of it.
 */
export async function assertionProvesClient(
  ctx: CommandContext,
  assertion: string,
  credential: Credential | undefined,
  /** The request presenting it: its jti is spent for that request. */
  requestId: string,
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
    if (!audienceIsOurIssuer(payload.aud, ctx.issuer)) return false;
    if (payload.exp! - now > MAX_LIFETIME_SECONDS || typeof payload.jti !== 'string') return false;
    return await ctx.usedOnce.remember(
      {
        spaceId: credential.spaceId,
        holder: `client:${credential.clientId}`,
        id: payload.jti,
        expiresAt: dateOfSeconds(payload.exp!),
      },
      requestId,
    );
  } catch (error) {
    // A database away, or anything else that is not of the JWS, is the service's failure.
    if (joseRefusal(error)) return false;
    throw error;
  }
}
