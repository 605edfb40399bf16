import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUniqueViolation } from '../db/postgres-errors.js';
import type { Credential } from '../domain/credential/state.js';
import type { Token } from '../domain/token/state.js';
import { ConflictError } from '../errors/errors.js';
import { writeCredential } from './credentials.js';
import { writeIdempotentResponse, type IdempotentResponse } from './idempotent-responses.js';
import { writeTokenRevocation } from './token-revocations.js';
import { writeAuthorizationState, type AuthorizationStateRow } from './authorization-states.js';
import { postgresKeyRingWrites, type KeyRingWrites } from './key-ring-writes.js';

/** A command's read-model writes in its append's transaction (a port; tests keep them in maps). */
export interface InlineWrites {
  /** The credential's row, as `evolveCredential` left it. */
  credential(state: Credential): Promise<void>;
  /** A revoked token's row (nothing when `token` is not revoked). */
  tokenRevocation(spaceId: string, token: Token): Promise<void>;
  /** A response kept for its Idempotency-Key; a ConflictError if another request kept one first. */
  idempotentResponse(response: IdempotentResponse): Promise<void>;
  /** An authorization stream's state (a space's app, a request) as its events leave it. */
  authorizationState(row: AuthorizationStateRow): Promise<void>;
  /** The signing keys' rows, read and written under the key-ring lock. */
  readonly keyRing: KeyRingWrites;
}

/** The inline writes through one Postgres transaction. */
export function postgresInlineWrites(trx: Transaction<Database>): InlineWrites {
  return {
    credential: (state) => writeCredential(trx, state),
    tokenRevocation: (spaceId, token) => writeTokenRevocation(trx, spaceId, token),
    idempotentResponse: (response) =>
      writeIdempotentResponse(trx, response).catch((error: unknown) => {
        if (!isUniqueViolation(error, 'idempotent_responses_pkey')) throw error;
        throw new ConflictError('another request with this Idempotency-Key was answered first');
      }),
    authorizationState: (row) => writeAuthorizationState(trx, row),
    keyRing: postgresKeyRingWrites(trx),
  };
}
