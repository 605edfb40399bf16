import { type EventMetadata, parseRecorded, streams } from '../../domain/events.js';
import type { Clock, IdGenerator } from '../../domain/ports.js';
import { decideRevokeToken } from '../../domain/token/decide.js';
import { evolveToken, type TokenEvent } from '../../domain/token/evolve.js';
import type { Token } from '../../domain/token/state.js';
import { msOf } from '../../domain/times.js';
import type { AccessTokenClaims } from '../../crypto/access-tokens.js';
import type { RevocationLookup } from '../../projections/revocation-lookup.js';
import type { Decider } from '../handle.js';

/** A revocation of a verified token by the client that authenticated. */
export interface RevokeToken {
  readonly clientId: string;
  /** The token's verified claims: they stand for its issuance event. */
  readonly claims: AccessTokenClaims;
  readonly metadata: EventMetadata;
}

/**
 * A token's stream is its issuance and at most its revocation: the state is the signed claims,
 * the version 1, and a conflict another revocation first (settled: RFC 7009 answers the same).
 */
export function revokeTokenDecider(ports: {
  readonly revocations: Pick<RevocationLookup, 'isRevoked' | 'noteRevoked'>;
  readonly ids: IdGenerator;
  readonly clock: Clock;
}): Decider<RevokeToken, Token> {
  return {
    stream: ({ claims }) => ({ spaceId: claims.space_id, stream: streams.issuedToken(claims.jti) }),
    load: async ({ claims }) => ({
      state: {
        jti: claims.jti,
        clientId: claims.client_id,
        kind: claims.token_kind,
        expiresAt: claims.exp,
        revokedAt: (await ports.revocations.isRevoked(claims.jti)) ? 0 : null,
      },
      version: 1,
    }),
    decide: (command, state) =>
      decideRevokeToken(
        { ...command, now: ports.clock.now(), eventId: ports.ids.eventId() },
        state,
      ),
    evolve: (state, event) => evolveToken(state, parseRecorded<TokenEvent['type']>(event)),
    inline: (writes, state, { claims }) => writes.tokenRevocation(claims.space_id, state),
    forget: ({ claims }) => ports.revocations.noteRevoked(claims.jti, msOf(claims.exp)),
    refusals: {},
    conflict: { then: 'settled', message: 'the token was revoked meanwhile' },
  };
}
