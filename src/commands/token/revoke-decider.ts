import { type EventMetadata, parseRecorded, streams } from '../../domain/events.js';
import type { Clock, IdGenerator } from '../../domain/ports.js';
import { decideRevokeToken } from '../../domain/token/decide.js';
import { evolveToken, type TokenEvent } from '../../domain/token/evolve.js';
import type { Token } from '../../domain/token/state.js';
import { msOf } from '../../domain/times.js';
import type { AccessTokenClaims } from '../../crypto/access-tokens.js';
import type { RevocationLookup } from '../../projections/revocation-lookup.js';
import type { Decider } from '../handle.js';
import type { CommandContext } from '../context.js';

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
  readonly authorizations?: Pick<NonNullable<CommandContext['authorizations']>, 'consentsEndOf'>;
}): Decider<RevokeToken, Token> {
  return {
    stream: ({ claims }) => ({ spaceId: claims.space_id, stream: streams.issuedToken(claims.jti) }),
    load: async ({ claims }) => ({
      state: {
        jti: claims.jti,
        clientId: claims.client_id,
        kind: claims.token_kind,
        // A storefront's token that accepted consents voids them all: its revocation is kept
        // as long as the longest of them, not only until the token's own end.
        expiresAt: Math.max(
          claims.exp,
          (await ports.authorizations?.consentsEndOf(claims.space_id, claims.jti)) ?? 0,
        ),
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
    forget: ({ claims }, state) => ports.revocations.noteRevoked(claims.jti, msOf(state.expiresAt)),
    refusals: {},
    conflict: { then: 'settled', message: 'the token was revoked meanwhile' },
  };
}
