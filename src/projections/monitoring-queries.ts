import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Which rate table to read. */
export type Granularity = 'minute' | 'hour';

/** What the rate views count, as every monitoring answer names it. */
export interface RateCounts {
  readonly private_tokens: number;
  readonly public_tokens: number;
  readonly rejected_authentications: number;
}

/** One bucket of a client's rates. */
export interface RateBucket extends RateCounts {
  readonly bucket_start: string;
}

const TABLE = { minute: 'client_rate_minute', hour: 'client_rate_hour' } as const;

/** A client's buckets in [from, to), oldest first. */
export async function clientRates(
  db: Kysely<Database>,
  options: {
    readonly spaceId: string;
    readonly clientId: string;
    readonly granularity: Granularity;
    readonly from: Date;
    readonly to: Date;
  },
): Promise<RateBucket[]> {
  const rows = await db
    .selectFrom(TABLE[options.granularity])
    .select(['bucket_start', 'private_tokens', 'public_tokens', 'rejected_authentications'])
    .where('space_id', '=', options.spaceId)
    .where('client_id', '=', options.clientId)
    .where('bucket_start', '>=', options.from)
    .where('bucket_start', '<', options.to)
    .orderBy('bucket_start')
    .execute();
  return rows.map((row) => ({ ...row, bucket_start: row.bucket_start.toISOString() }));
}

/** A client's issuances per granted scope in [from, to) (hour buckets), busiest first. */
export async function clientScopes(
  db: Kysely<Database>,
  options: {
    readonly spaceId: string;
    readonly clientId: string;
    readonly from: Date;
    readonly to: Date;
  },
): Promise<Array<{ scope: string; private_tokens: number; public_tokens: number }>> {
  const rows = await db
    .selectFrom('client_scope_rate_hour')
    .select([
      'scope',
      sql<string>`sum(private_tokens)`.as('private_tokens'),
      sql<string>`sum(public_tokens)`.as('public_tokens'),
    ])
    .where('space_id', '=', options.spaceId)
    .where('client_id', '=', options.clientId)
    .where('bucket_start', '>=', options.from)
    .where('bucket_start', '<', options.to)
    .groupBy('scope')
    .orderBy(sql`sum(private_tokens) + sum(public_tokens)`, 'desc')
    .orderBy('scope')
    .execute();
  return rows.map((row) => ({
    scope: row.scope,
    private_tokens: Number(row.private_tokens),
    public_tokens: Number(row.public_tokens),
  }));
}

/** The busiest clients of a space since `from`, by `metric`. */
export async function topClients(
  db: Kysely<Database>,
  options: {
    readonly spaceId: string;
    readonly from: Date;
    readonly metric: 'tokens' | 'private_tokens' | 'public_tokens' | 'rejected_authentications';
    readonly limit: number;
  },
): Promise<Array<RateCounts & { client_id: string; name: string | null }>> {
  const order = {
    tokens: sql`sum(r.private_tokens) + sum(r.public_tokens)`,
    private_tokens: sql`sum(r.private_tokens)`,
    public_tokens: sql`sum(r.public_tokens)`,
    rejected_authentications: sql`sum(r.rejected_authentications)`,
  }[options.metric];
  return db
    .selectFrom('client_rate_minute as r')
    .leftJoin('credentials as c', 'c.client_id', 'r.client_id')
    .select([
      'r.client_id',
      'c.name',
      sql<number>`sum(r.private_tokens)::bigint`.as('private_tokens'),
      sql<number>`sum(r.public_tokens)::bigint`.as('public_tokens'),
      sql<number>`sum(r.rejected_authentications)::bigint`.as('rejected_authentications'),
    ])
    .where('r.space_id', '=', options.spaceId)
    .where('r.bucket_start', '>=', options.from)
    .groupBy(['r.client_id', 'c.name'])
    .orderBy(order, 'desc')
    .orderBy('r.client_id')
    .limit(options.limit)
    .execute();
}

/** A space's counts since `from`, all clients together. */
export async function spaceTotals(
  db: Kysely<Database>,
  options: { readonly spaceId: string; readonly from: Date },
): Promise<RateCounts> {
  return db
    .selectFrom('client_rate_minute')
    .select([
      sql<number>`coalesce(sum(private_tokens), 0)::bigint`.as('private_tokens'),
      sql<number>`coalesce(sum(public_tokens), 0)::bigint`.as('public_tokens'),
      sql<number>`coalesce(sum(rejected_authentications), 0)::bigint`.as(
        'rejected_authentications',
      ),
    ])
    .where('space_id', '=', options.spaceId)
    .where('bucket_start', '>=', options.from)
    .executeTakeFirstOrThrow();
}

/** Which of `clientIds` belong to the space. */
export async function clientsOfSpace(
  db: Kysely<Database>,
  spaceId: string,
  clientIds: readonly string[],
): Promise<readonly string[]> {
  if (clientIds.length === 0) return [];
  const rows = await db
    .selectFrom('credentials')
    .select('client_id')
    .where('space_id', '=', spaceId)
    // One array parameter: the refused clients may be more than a statement's 65,535 parameters.
    .where(sql<boolean>`client_id = any(${[...clientIds]}::text[])`)
    .execute();
  return rows.map((row) => row.client_id);
}

/** How far each projection is behind the log, in events and seconds. */
export async function projectorLag(
  db: Kysely<Database>,
): Promise<Array<{ projection: string; events_behind: number; seconds_behind: number }>> {
  const result = await sql<{ projection: string; events_behind: number; seconds_behind: number }>`
    SELECT projection, events_behind::bigint AS events_behind, seconds_behind::float8 AS seconds_behind
    FROM dashboard_projector_lag`.execute(db);
  return result.rows;
}
