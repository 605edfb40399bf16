import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/** A row of `authorization_states`: an authorization stream's state and version (migration 047). */
export interface AuthorizationStateRow {
  readonly spaceId: string;
  readonly key: string;
  readonly state: unknown;
  readonly version: number;
  readonly expiresAt: Date | null;
}

/** Written in the append's transaction, so the next decision reads what this one left. */
export async function writeAuthorizationState(
  trx: Transaction<Database>,
  row: AuthorizationStateRow,
): Promise<void> {
  const values = {
    space_id: row.spaceId,
    key: row.key,
    state: JSON.stringify(row.state),
    version: row.version,
    expires_at: row.expiresAt,
  };
  await trx
    .insertInto('authorization_states')
    .values(values)
    .onConflict((conflict) => conflict.columns(['space_id', 'key']).doUpdateSet(values))
    .execute();
}

/** The state under `key` and its version, read now (never cached: the append checks the version). */
export async function readAuthorizationState(
  db: Kysely<Database>,
  key: string,
): Promise<Omit<AuthorizationStateRow, 'key'> | undefined> {
  const row = await db
    .selectFrom('authorization_states')
    .select(['space_id', 'state', 'version', 'expires_at'])
    .where('key', '=', key)
    .executeTakeFirst();
  return row && rowOf(row);
}

/** A selected row in the shape the commands read. */
const rowOf = <Row extends { space_id: string; state: unknown; version: number }>(
  row: Row & { expires_at: Date | null; key?: string },
) => ({
  spaceId: row.space_id,
  ...(row.key === undefined ? {} : { key: row.key }),
  state: row.state,
  version: row.version,
  expiresAt: row.expires_at,
});

/**
 * The redeemed requests a customer consented to in a space that have not ended (migration 048's
 * index), latest end first: a void or ended one never takes a standing one's place in the list.
 */
export async function readConsentRows(
  db: Kysely<Database>,
  spaceId: string,
  customerId: string,
): Promise<AuthorizationStateRow[]> {
  const rows = await db
    .selectFrom('authorization_states')
    .select(['space_id', 'key', 'state', 'version', 'expires_at'])
    .where('space_id', '=', spaceId)
    .where(sql<boolean>`state->>'status' = 'redeemed'`)
    .where(sql<string>`state->'consent'->>'customer_id'`, '=', customerId)
    .where('expires_at', '>', new Date())
    .orderBy('expires_at', 'desc')
    .limit(CONSENTS_LISTED)
    .execute();
  return rows.map((row) => ({ ...rowOf(row), key: row.key }));
}

/** The most consents one customer's list shows: an agent asks again rather than pile up. */
export const CONSENTS_LISTED = 200;

/** The latest end of the consents `parentJti` (a storefront's private token) accepted in a space. */
export async function readConsentsEnd(
  db: Kysely<Database>,
  spaceId: string,
  parentJti: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('authorization_states')
    .select(sql<string | null>`max(state->'consent'->>'expires_at')::bigint`.as('ends'))
    .where('space_id', '=', spaceId)
    .where(sql<boolean>`state ? 'consent'`)
    .where(sql<string>`state->'consent'->>'parent_jti'`, '=', parentJti)
    .executeTakeFirst();
  return row?.ends == null ? undefined : Number(row.ends);
}
