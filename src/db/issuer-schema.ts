import type { ColumnType, Generated } from 'kysely';

/** An issuer a space trusts for the jwt-bearer grant (migration 041), as its events leave it. */
export interface TrustedIssuersTable {
  issuer_id: string;
  space_id: string;
  iss: string;
  /** The admin's definition (keys, audience, rules), as the event recorded it. */
  definition: ColumnType<unknown, string, string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** When an admin removed it: the row stays, no longer trusted. */
  removed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A domain whose client ID metadata documents a space takes as clients (migration 043). */
export interface MetadataClientDomainsTable {
  space_id: string;
  domain: string;
  scopes: ColumnType<unknown, string | null, string | null>;
  budget_per_minute: number | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  removed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
