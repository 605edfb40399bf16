import { issuedTo, standsOnCredentials, tokenInSpace, tokenRevoked } from '../../domain/policy.js';
import { scopeWords } from '#verifier/scope.js';
import type { Credential } from '../../domain/credential/state.js';
import { credentialsBehind, type StandingPorts } from './standing.js';
import type { AccessTokenClaims } from '../../crypto/access-tokens.js';
import type { CommandContext } from '../context.js';

/**
 * Our own access token's verified claims, or undefined for anything that is not one: a Storefront
 * audience's, or a stream-management token, which only its own client (`caller`) introspects or
 * revokes (no resource server of the Storefront is told it is active).
 */
export async function verifiedClaims(
  ctx: Pick<CommandContext, 'verifier' | 'streamsVerifier'>,
  token: string,
  caller: string,
): Promise<AccessTokenClaims | undefined> {
  const storefront = await ctx.verifier.verifyAny(token).catch(() => undefined);
  if (storefront) return storefront;
  const managing = await ctx.streamsVerifier.verifyAny(token).catch(() => undefined);
  return managing && issuedTo({ clientId: managing.client_id }, caller) ? managing : undefined;
}

/** What judging a token's standing reads: revocations, the credentials behind it, the catalog. */
export type TokenStandingPorts = StandingPorts & {
  readonly revocations: Pick<CommandContext['revocations'], 'isRevoked'>;
};

/**
 * Whether a signed, unexpired token still stands: not revoked itself or through a token it came
 * from, and every credential it came through active and still allowing its scopes. The one rule
 * introspection and the status lists answer by.
 */
export async function tokenStands(
  ctx: TokenStandingPorts,
  claims: AccessTokenClaims,
  /** The credentials behind it, when the caller read them already ({@link credentialsBehind}). */
  behind?: ReadonlyArray<Credential | undefined>,
): Promise<boolean> {
  if (await tokenRevoked(claims, (jti) => ctx.revocations.isRevoked(jti))) return false;
  // Revoking or narrowing any credential it came through, or the catalog, reaches a live token.
  const token = {
    spaceId: claims.space_id,
    scopes: scopeWords(claims.scope),
    audience: claims.aud,
  };
  return standsOnCredentials(
    token,
    behind ?? (await credentialsBehind(ctx, claims)),
    ctx.scopeCatalog,
  );
}

/** An RFC 7662 introspection answer. */
export type Introspection =
  | { readonly active: false }
  | ({ readonly active: true; readonly token_type: 'Bearer' | 'DPoP' } & Readonly<
      Record<string, unknown>
    >);

/**
 * RFC 7662: whether `token` is active for a client of `client`'s space, and its claims if so;
 * anything revoked, withdrawn, foreign or carrying a scope taken away since is inactive.
 */
export async function introspectToken(
  ctx: CommandContext,
  command: { readonly client: Credential; readonly token: string },
): Promise<Introspection> {
  // Every call draws from the client's budget, like issuance: no endpoint is a free amplifier.
  ctx.limits.clientRequest(command.client);
  const claims = await verifiedClaims(ctx, command.token, command.client.clientId);
  const ours = claims && tokenInSpace({ spaceId: claims.space_id }, command.client.spaceId);
  if (!ours || !(await tokenStands(ctx, claims))) return { active: false };
  const common = {
    active: true as const,
    // RFC 9449 §6.2: a bound token says so, and to which key.
    token_type: claims.cnf ? ('DPoP' as const) : ('Bearer' as const),
    ...(claims.cnf ? { cnf: claims.cnf } : {}),
    client_id: claims.client_id,
    sub: claims.sub,
    aud: claims.aud,
    iss: claims.iss,
    exp: claims.exp,
    iat: claims.iat,
    jti: claims.jti,
    space_id: claims.space_id,
    token_kind: claims.token_kind,
    ...(claims.scope ? { scope: claims.scope } : {}),
  };
  return claims.token_kind === 'public'
    ? {
        ...common,
        customer_id: claims.customer_id,
        segment_id: claims.segment_id,
        parent_jti: claims.parent_jti,
        // RFC 8693 §4.1, §4.4: who acts, and who may (never dropped).
        act: claims.act,
        ...(claims.may_act ? { may_act: claims.may_act } : {}),
      }
    : common;
}
