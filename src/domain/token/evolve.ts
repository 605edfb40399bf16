import type { Recorded } from '../events.js';
import { TOKEN_ISSUANCES } from './issuances.js';
import type { Token } from './state.js';

/** The events of a token's stream. */
export type TokenEvent = Recorded<'private-token-issued' | 'public-token-issued' | 'token-revoked'>;

/** The token after `event`. Pure; a revoked token's state is the `token_revocations` row. */
export function evolveToken(state: Token | undefined, event: TokenEvent): Token {
  switch (event.type) {
    case 'private-token-issued':
    case 'public-token-issued':
      return {
        jti: event.data.jti,
        clientId: event.data.client_id,
        kind: TOKEN_ISSUANCES[event.type],
        expiresAt: Date.parse(event.data.expires_at) / 1000,
        revokedAt: null,
      };
    case 'token-revoked':
      if (!state) throw new Error('token-revoked before the token was issued');
      return { ...state, revokedAt: event.recordedAt.getTime() };
  }
}
