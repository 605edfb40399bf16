import { streams, type DomainEvent } from '../../domain/events.js';
import { storedForm } from '../../domain/stored-form.js';
import { ConflictError, InvalidDpopProofError } from '../../errors/errors.js';
import {
  salted,
  signAccessTokenOffThread,
  signatureDigest,
  type AccessTokenClaims,
} from '../../crypto/access-tokens.js';
import type { CommandContext } from '../context.js';
import type { RateLimitState } from '../../limits/limits.js';
import { signingOfSpace } from '../signing-key/space-signing.js';
import type { SigningKey } from '../../crypto/key-store.js';
import { inSpan, tracingOn } from '../../observability/tracing.js';
import type { DpopProof } from '../../crypto/dpop.js';

/** An access token and its lifetime in seconds. */
export interface IssuedToken {
  readonly token: string;
  readonly expiresIn: number;
  /** `DPoP` for a token bound to a key (RFC 9449 §5), else `Bearer`. */
  readonly tokenType: 'Bearer' | 'DPoP';
  /** The granted scopes' text (RFC 6749 §5.1 `scope`); absent when none were granted. */
  readonly scope?: string;
  /** The client's budget after this request, for the RateLimit headers. */
  readonly rateLimit: RateLimitState;
}

/** Every issuance's last step: spend the proof, sign, and answer only once the event committed. */
export async function recordIssuedToken(
  ctx: CommandContext,
  claims: AccessTokenClaims,
  event: DomainEvent<'private-token-issued' | 'public-token-issued'>,
  rateLimit: RateLimitState,
  dpop: DpopProof | undefined,
): Promise<IssuedToken> {
  // A DPoP proof is good for one request (RFC 9449 §11.1): its jti is remembered across replicas.
  const { space_id: spaceId } = claims;
  const used = dpop && {
    spaceId,
    holder: `dpop:${dpop.jkt}`,
    id: dpop.jti,
    expiresAt: dpop.expiresAt,
  };
  if (used && !(await ctx.usedOnce.remember(used))) {
    throw new InvalidDpopProofError('this DPoP proof was already used (jti replayed)');
  }
  // Signed first: no issuance recorded for a token that could not be made. A space with its own
  // ring signs with it and names its own issuer.
  const spaces = ctx.spaceKeys;
  const own = spaces?.store.signsOwn(claims.space_id);
  const token = own
    ? await signedByRing(ctx, spaces!, claims)
    : await signedWith(ctx.keys.current(), spaces ? salted(claims) : claims);
  // A shared-ring token may outlive its space's switch to its own ring: then it is honoured only
  // as this very token (policy/tokens.ts), by what is kept beside its event.
  const digest =
    spaces && !own
      ? {
          digest: signatureDigest(token.slice(token.lastIndexOf('.') + 1)),
          expiresAt: new Date(claims.exp * 1000),
        }
      : undefined;
  const stream = streams.token(claims.jti);
  const append = () =>
    ctx.events.append({
      spaceId: claims.space_id,
      stream,
      events: [storedForm(event, stream.streamId)],
      ...(digest ? { digest } : {}),
    });
  // Tracing off, not even the span's attributes are built: the issuance path is as it was.
  const appended = tracingOn()
    ? await inSpan(
        'append',
        { 'event.id': event.eventId, 'event.type': event.type, 'tenant.space_id': claims.space_id },
        append,
      )
    : await append();
  if (!appended.ok) throw new ConflictError('token id collision; retry the request');
  return {
    token,
    expiresIn: claims.exp - claims.iat,
    tokenType: claims.cnf ? 'DPoP' : 'Bearer',
    ...(claims.scope ? { scope: claims.scope } : {}),
    rateLimit,
  };
}

async function signedByRing(
  ctx: CommandContext,
  spaces: NonNullable<CommandContext['spaceKeys']>,
  claims: AccessTokenClaims,
): Promise<string> {
  const ring = await signingOfSpace(ctx.events, spaces, ctx.issuer, claims.space_id);
  return signedWith(ring.key, { ...claims, iss: ring.issuer });
}

// The signature's own span: an HSM's latency shows as this span's length (the token is not in it).
function signedWith(key: SigningKey, claims: AccessTokenClaims): Promise<string> {
  if (!tracingOn()) return signAccessTokenOffThread(key, claims);
  return inSpan('sign', { 'signer.kind': key.privateKey ? 'local' : 'pkcs11', kid: key.kid }, () =>
    signAccessTokenOffThread(key, claims),
  );
}
