import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { lockSpaceFor } from '../db/advisory-locks.js';
import type { TrustedIssuerState } from '../domain/trusted-issuer/decide.js';
import { trustedIssuerDefinitionSchema } from '../domain/event-data/trusted-issuer.js';
import { scopeListSchema } from '../domain/event-data/credential.js';
import {
  DEFAULT_DOMAIN_BUDGET_PER_MINUTE,
  type MetadataClientDomain,
} from '../domain/metadata-client/decide.js';

type Reader = Kysely<Database> | Transaction<Database>;

/** A row as the deciders and the grant see it (the definition parsed as recorded). */
const stateOf = (row: {
  issuer_id: string;
  space_id: string;
  definition: unknown;
  removed_at: Date | null;
}): TrustedIssuerState => ({
  issuerId: row.issuer_id,
  spaceId: row.space_id,
  definition: trustedIssuerDefinitionSchema.parse(row.definition),
  removed: row.removed_at !== null,
});

const columns = ['issuer_id', 'space_id', 'definition', 'removed_at'] as const;

/** A space's live issuers, oldest first. */
export async function listTrustedIssuers(
  db: Reader,
  spaceId: string,
): Promise<TrustedIssuerState[]> {
  const rows = await db
    .selectFrom('trusted_issuers')
    .select(columns)
    .where('space_id', '=', spaceId)
    .where('removed_at', 'is', null)
    .orderBy('created_at')
    .execute();
  return rows.map(stateOf);
}

/** The space's live issuer of this `iss`, if it trusts one. */
export async function findTrustedIssuer(
  db: Reader,
  spaceId: string,
  iss: string,
): Promise<TrustedIssuerState | undefined> {
  const row = await db
    .selectFrom('trusted_issuers')
    .select(columns)
    .where('space_id', '=', spaceId)
    .where('iss', '=', iss)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return row && stateOf(row);
}

/** An issuer change's reads and writes in its event's transaction, as a port. */
export interface IssuerWrites {
  /** Holds the space's issuer lock: two adds of one `iss` cannot both see it free. */
  lockSpace(spaceId: string): Promise<void>;
  /** The issuer's state, its row locked until the transaction ends. */
  locked(issuerId: string): Promise<TrustedIssuerState | undefined>;
  liveIdOf(spaceId: string, iss: string): Promise<string | undefined>;
  write(state: TrustedIssuerState): Promise<void>;
  /** A space's allowed metadata-client domain, its row locked (removed ones too). */
  lockedDomain(spaceId: string, domain: string): Promise<MetadataClientDomain | undefined>;
  writeDomain(state: MetadataClientDomain): Promise<void>;
  /** The space's live issuers or allowed domains (under its lock, to judge one more). */
  liveCount(spaceId: string, table: 'trusted_issuers' | 'metadata_client_domains'): Promise<number>;
}

/** The issuers' reads and writes through one Postgres transaction. */
export function postgresIssuerWrites(trx: Transaction<Database>): IssuerWrites {
  return {
    lockSpace: (spaceId) => lockSpaceFor(trx, 'trustedIssuers', spaceId),
    locked: async (issuerId) => {
      const row = await trx
        .selectFrom('trusted_issuers')
        .select(columns)
        .where('issuer_id', '=', issuerId)
        .forUpdate()
        .executeTakeFirst();
      return row && stateOf(row);
    },
    liveIdOf: async (spaceId, iss) => (await findTrustedIssuer(trx, spaceId, iss))?.issuerId,
    write: async (state) => {
      const row = {
        space_id: state.spaceId,
        iss: state.definition.iss,
        definition: JSON.stringify(state.definition),
        removed_at: state.removed ? new Date() : null,
      };
      await trx
        .insertInto('trusted_issuers')
        .values({ issuer_id: state.issuerId, ...row })
        .onConflict((oc) =>
          oc
            .columns(['issuer_id', 'space_id'])
            .doUpdateSet({ ...row, updated_at: sql<Date>`now()` }),
        )
        .execute();
    },
    lockedDomain: async (spaceId, domain) =>
      (await metadataClientDomains(trx, spaceId, domain, { removed: true, lock: true }))[0],
    writeDomain: (state) => writeMetadataClientDomain(trx, state),
    liveCount: async (spaceId, table) =>
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}
          WHERE space_id = ${spaceId} AND removed_at IS NULL`.execute(trx)
      ).rows[0]!.n,
  };
}

/** A store's writes that include the issuers'. */
export interface WithIssuerWrites {
  readonly issuers: IssuerWrites;
}

/** A space's allowed domain row as the token endpoint and the admin's commands see it. */
const domainOf = (row: {
  space_id: string;
  domain: string;
  scopes: unknown;
  budget_per_minute: number | null;
  removed_at: Date | null;
}): MetadataClientDomain => ({
  spaceId: row.space_id,
  domain: row.domain,
  scopes: row.scopes === null ? null : scopeListSchema.parse(row.scopes),
  budgetPerMinute: row.budget_per_minute ?? DEFAULT_DOMAIN_BUDGET_PER_MINUTE,
  removed: row.removed_at !== null,
});

const domainColumns = ['space_id', 'domain', 'scopes', 'budget_per_minute', 'removed_at'] as const;

/** A space's domains whose client ID metadata documents it takes; one domain, or every live one. */
export async function metadataClientDomains(
  db: Reader,
  spaceId: string,
  domain?: string,
  options: { readonly removed?: boolean; readonly lock?: boolean } = {},
): Promise<MetadataClientDomain[]> {
  let query = db
    .selectFrom('metadata_client_domains')
    .select(domainColumns)
    .where('space_id', '=', spaceId);
  if (domain !== undefined) query = query.where('domain', '=', domain);
  if (!options.removed) query = query.where('removed_at', 'is', null);
  if (options.lock) query = query.forUpdate();
  return (await query.orderBy('domain').execute()).map(domainOf);
}

/** Writes a domain's row as the decision leaves it, in its event's transaction. */
export async function writeMetadataClientDomain(
  trx: Transaction<Database>,
  state: MetadataClientDomain,
): Promise<void> {
  const row = {
    scopes: state.scopes === null ? null : JSON.stringify(state.scopes),
    budget_per_minute: state.budgetPerMinute,
    removed_at: state.removed ? new Date() : null,
  };
  await trx
    .insertInto('metadata_client_domains')
    .values({ space_id: state.spaceId, domain: state.domain, ...row })
    .onConflict((oc) =>
      oc.columns(['space_id', 'domain']).doUpdateSet({ ...row, updated_at: sql<Date>`now()` }),
    )
    .execute();
}
