import type { CredentialView } from '../domain/credential-view.js';
import { decideRevokeToken } from '../domain/decisions.js';
import { streams, type EventMetadata } from '../domain/events.js';
import { projectCredentialEvents } from '../projections/credentials.js';
import type { AccessTokenClaims } from '../tokens/access-tokens.js';
import type { CommandContext } from './context.js';

/** Our own access token's verified claims, or undefined for anything that is not one. */
async function verifiedClaims(
  ctx: CommandContext,
  token: string,
): Promise<AccessTokenClaims | undefined> {
  return ctx.verifier.verifyAny(token).catch(() => undefined);
}

/**
 * RFC 7009: revokes `token` when it was issued to the authenticated client; for anything else
 * (another client's token, a forged or expired one) nothing happens and nothing is recorded.
 * A revoked private token takes the public tokens derived from it along (they name it as
 * parent_jti, which introspection, /v1/issue and the revocation list all check).
 */
export async function revokeToken(
  ctx: CommandContext,
  command: {
    readonly client: CredentialView;
    readonly token: string;
    readonly metadata: EventMetadata;
  },
): Promise<void> {
  const claims = await verifiedClaims(ctx, command.token);
  if (!claims || claims.space_id !== command.client.spaceId) return;
  const event = decideRevokeToken(
    { clientId: command.client.clientId, metadata: command.metadata },
    { clientId: claims.client_id, jti: claims.jti, kind: claims.token_kind, expiresAt: claims.exp },
    ctx.revocations.isRevoked(claims.jti),
    ctx.clock,
    ctx.ids,
  );
  if (!event) return;
  // The token's own stream holds its issuance at position 1; a second revocation conflicts.
  const appended = await ctx.events.append(
    {
      spaceId: claims.space_id,
      streamId: streams.token(claims.jti),
      expectedVersion: 1,
      events: [event],
    },
    projectCredentialEvents,
  );
  if (appended.ok) ctx.revocations.noteRevoked(claims.jti, claims.exp * 1000);
}

/** An RFC 7662 introspection answer. */
export type Introspection =
  | { readonly active: false }
  | ({ readonly active: true; readonly token_type: 'Bearer' } & Readonly<Record<string, unknown>>);

/**
 * RFC 7662: whether `token` is active for a client of `client`'s space, and its claims if so.
 * Inactive: not ours, forged, expired, signed by a withdrawn key, of another space, revoked, derived
 * from a revoked private token, or of a revoked credential.
 */
export async function introspectToken(
  ctx: CommandContext,
  command: { readonly client: CredentialView; readonly token: string },
): Promise<Introspection> {
  const claims = await verifiedClaims(ctx, command.token);
  if (!claims || claims.space_id !== command.client.spaceId) return { active: false };
  if (ctx.revocations.isRevoked(claims.jti)) return { active: false };
  if (claims.token_kind === 'public' && ctx.revocations.isRevoked(claims.parent_jti)) {
    return { active: false };
  }
  const owner = await ctx.credentials.find(claims.client_id);
  if (!owner || owner.status !== 'active') return { active: false };
  const common = {
    active: true as const,
    token_type: 'Bearer' as const,
    client_id: claims.client_id,
    sub: claims.sub,
    aud: claims.aud,
    iss: claims.iss,
    exp: claims.exp,
    iat: claims.iat,
    jti: claims.jti,
    space_id: claims.space_id,
    token_kind: claims.token_kind,
  };
  return claims.token_kind === 'public'
    ? {
        ...common,
        customer_id: claims.customer_id,
        segment_id: claims.segment_id,
        parent_jti: claims.parent_jti,
      }
    : common;
}
