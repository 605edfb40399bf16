import type { Kysely } from 'kysely';
import type { ReadRouter } from '../db/read-replica.js';
import type { Database } from '../db/schema.js';
import type { RequestContext } from './state.js';

/**
 * The database a read goes to (a replica within READ_REPLICA_MAX_LAG_MS, else the primary),
 * and the answer says which and how fresh: `X-Data-Source` and `X-Data-Lag-Ms`.
 */
export function readFrom(ctx: RequestContext, router: ReadRouter): Kysely<Database> {
  const read = router.reads();
  ctx.set('X-Data-Source', read.source);
  ctx.set('X-Data-Lag-Ms', String(Math.round(read.lagMs)));
  return read.db;
}
