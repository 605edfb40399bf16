import { tokenInSpace } from '../../domain/policy.js';
import type { Credential } from '../../domain/credential/state.js';
import { parseRecorded, streams, type EventMetadata } from '../../domain/events.js';
import { decideRevokeToken } from '../../domain/token/decide.js';
import { evolveToken, type TokenEvent } from '../../domain/token/evolve.js';
import type { Token } from '../../domain/token/state.js';
import type { CommandContext } from '../context.js';
import { verifiedClaims } from './introspect.js';
import { msOf } from '../../domain/times.js';

/**
 * RFC 7009: revokes `token` when it was issued to the authenticated client; for anything else
 * (another client's token, a forged or expired one) nothing happens and nothing is recorded.
 * A revoked private token takes the public tokens derived from it along (they name it as
 * parent_jti, which introspection, /v1/issue and the revocation list all check).
 */
export async function revokeToken(
  ctx: CommandContext,
  command: {
    readonly client: Credential;
    readonly token: string;
    readonly metadata: EventMetadata;
  },
): Promise<void> {
  // Every call draws from the client's budget, like issuance: no endpoint is a free amplifier.
  ctx.limits.clientRequest(command.client);
  const claims = await verifiedClaims(ctx, command.token);
  if (!claims || !tokenInSpace({ spaceId: claims.space_id }, command.client.spaceId)) return;
  // The signed claims stand for the token's issuance event; the lookup says if it was revoked.
  const state: Token = {
    jti: claims.jti,
    clientId: claims.client_id,
    kind: claims.token_kind,
    expiresAt: claims.exp,
    revokedAt: (await ctx.revocations.isRevoked(claims.jti)) ? 0 : null,
  };
  const { events } = decideRevokeToken(
    {
      clientId: command.client.clientId,
      now: ctx.clock.now(),
      eventId: ctx.ids.eventId(),
      metadata: command.metadata,
    },
    state,
  );
  if (events.length === 0) return;
  // The token's own stream holds its issuance at position 1; a second revocation conflicts.
  const appended = await ctx.events.append(
    {
      spaceId: claims.space_id,
      streamId: streams.token(claims.jti),
      expectedVersion: 1,
      events,
    },
    async (writes, recorded) => {
      const revoked = recorded
        .map((event) => parseRecorded<TokenEvent['type']>(event))
        .reduce(evolveToken, state);
      await writes.tokenRevocation(claims.space_id, revoked);
    },
  );
  if (appended.ok) ctx.revocations.noteRevoked(claims.jti, msOf(claims.exp));
}
