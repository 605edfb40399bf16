import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Credential } from '../domain/credential/state.js';
import { clientJwksSchema } from '../domain/events.js';

/**
 * The `credentials` read model, written in the append's transaction so changes hold when the
 * request returns. Issuance never writes here: a row per credential would serialise its requests.
 */
export async function writeCredential(
  trx: Transaction<Database>,
  state: Credential,
): Promise<void> {
  const row = {
    space_id: state.spaceId,
    name: state.name,
    description: state.description,
    secret_hash: state.secretHash,
    jwks: state.jwks ? JSON.stringify(state.jwks) : null,
    require_dpop: state.requireDpop,
    status: state.status,
    stream_version: state.version,
    created_by: state.createdBy,
    created_at: new Date(state.createdAt),
    updated_at: new Date(state.updatedAt),
    previous_secret_hash: state.previousSecretHash,
    previous_secret_expires_at: ms(state.previousSecretExpiresAt),
    revoked_at: ms(state.revokedAt),
    revoked_reason: state.revokedReason,
    rate_limit_per_minute: state.rateLimitPerMinute,
    scopes: state.scopes ? [...state.scopes] : null,
    scopes_narrowed_at: ms(state.scopesNarrowedAt),
    redirect_uris: state.redirectUris.length > 0 ? [...state.redirectUris] : null,
  };
  // The stream's version check already ran in this transaction: the row is at version - 1.
  await trx
    .insertInto('credentials')
    .values({ client_id: state.clientId, ...row })
    .onConflict((oc) => oc.column('client_id').doUpdateSet(row))
    .execute();
}

const ms = (value: number | null) => (value === null ? null : new Date(value));

/** The credential with this client id, or undefined. */
export async function findCredential(
  db: Kysely<Database>,
  clientId: string,
): Promise<Credential | undefined> {
  const row = await db
    .selectFrom('credentials')
    .selectAll()
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row
    ? {
        clientId: row.client_id,
        spaceId: row.space_id,
        name: row.name,
        description: row.description,
        createdBy: row.created_by,
        status: row.status,
        secretHash: row.secret_hash,
        jwks: row.jwks ? clientJwksSchema.parse(row.jwks) : null,
        requireDpop: row.require_dpop,
        previousSecretHash: row.previous_secret_hash,
        previousSecretExpiresAt: row.previous_secret_expires_at?.getTime() ?? null,
        revokedAt: row.revoked_at?.getTime() ?? null,
        revokedReason: row.revoked_reason,
        rateLimitPerMinute: row.rate_limit_per_minute,
        scopes: row.scopes,
        scopesNarrowedAt: row.scopes_narrowed_at?.getTime() ?? null,
        redirectUris: row.redirect_uris ?? [],
        version: Number(row.stream_version),
        createdAt: row.created_at.getTime(),
        updatedAt: row.updated_at.getTime(),
      }
    : undefined;
}
