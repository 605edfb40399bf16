import type pg from 'pg';

export const secondsSince = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;

/** Seconds until the projector's views and the sealer have reached what is in the log now. */
export async function caughtUp(pool: pg.Pool): Promise<{ projector: number; sealer: number }> {
  const started = process.hrtime.bigint();
  const { rows } = await pool.query<{ total: string }>('SELECT count(*) AS total FROM events');
  const total = Number(rows[0]!.total);
  let projector: number | undefined;
  let sealer: number | undefined;
  while (projector === undefined || sealer === undefined) {
    const state = (
      await pool.query<{ behind: boolean; sealed: string }>(
        `SELECT (SELECT (transaction_id, global_position) FROM events
                  WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
                  ORDER BY transaction_id DESC, global_position DESC LIMIT 1)
                IS DISTINCT FROM
                (SELECT (transaction_id, global_position) FROM projection_checkpoints
                  WHERE projection = 'rates') AS behind,
                (SELECT COALESCE(max(tree_size), 0) FROM log_seals) AS sealed`,
      )
    ).rows[0]!;
    if (projector === undefined && !state.behind) projector = secondsSince(started);
    if (sealer === undefined && Number(state.sealed) >= total) sealer = secondsSince(started);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { projector, sealer };
}

/** How far the projector and the sealer are into one bulk transaction, some seconds after it. */
interface Sample {
  readonly at: number;
  readonly projected: number;
  readonly sealed: number;
}

/** One follower's catch-up: when it was done (or not) and its rate in each window. */
export interface FollowerCatchUp {
  /** Seconds from the commit to the last event, or undefined if the bound came first. */
  readonly seconds: number | undefined;
  /** Events a second in each window; the last may be shorter (see `lastWindowSeconds`). */
  readonly windows: readonly number[];
  readonly lastWindowSeconds: number;
  readonly windowSeconds: number;
}

/**
 * Commits `count` events in one transaction (`insert` writes them on the client it is given) and
 * follows the projector's `rates` checkpoint and the sealer's tree size through them every 250 ms,
 * for at most `maxSeconds`. The projector's progress is its position in the transaction: the
 * positions one INSERT takes are consecutive unless another transaction takes one in between.
 */
export async function bulkCatchUp(
  pool: pg.Pool,
  count: number,
  insert: (client: pg.PoolClient) => Promise<void>,
  options: { readonly windowSeconds: number; readonly maxSeconds: number },
): Promise<{ projector: FollowerCatchUp; sealer: FollowerCatchUp; insertSeconds: number }> {
  const sealedBefore = await treeSize(pool);
  const inserting = process.hrtime.bigint();
  const client = await pool.connect();
  let tx: string;
  try {
    await client.query('BEGIN');
    tx = (await client.query<{ tx: string }>('SELECT pg_current_xact_id()::text AS tx')).rows[0]!
      .tx;
    await insert(client);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  const insertSeconds = secondsSince(inserting);
  const started = process.hrtime.bigint();
  const first = Number(
    (
      await pool.query<{ first: string }>(
        'SELECT min(global_position) AS first FROM events WHERE transaction_id = $1::xid8',
        [tx],
      )
    ).rows[0]!.first,
  );
  const samples: Sample[] = [{ at: 0, projected: 0, sealed: 0 }];
  for (;;) {
    const { rows } = await pool.query<{ projected: string }>(
      `SELECT CASE WHEN transaction_id < $1::xid8 THEN 0
                   WHEN transaction_id > $1::xid8 THEN $2::bigint
                   ELSE global_position - $3::bigint + 1 END AS projected
       FROM projection_checkpoints WHERE projection = 'rates'`,
      [tx, count, first],
    );
    const at = secondsSince(started);
    const sample = {
      at,
      projected: Math.min(count, Number(rows[0]?.projected ?? 0)),
      sealed: Math.min(count, (await treeSize(pool)) - sealedBefore),
    };
    samples.push(sample);
    if ((sample.projected >= count && sample.sealed >= count) || at > options.maxSeconds) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const follower = (key: 'projected' | 'sealed') =>
    windowsOf(samples, key, count, options.windowSeconds);
  return { projector: follower('projected'), sealer: follower('sealed'), insertSeconds };
}

async function treeSize(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ size: string }>(
    'SELECT COALESCE(max(tree_size), 0) AS size FROM log_seals',
  );
  return Number(rows[0]!.size);
}

/** Events a second in each window from the commit to the end, read between samples linearly. */
function windowsOf(
  samples: readonly Sample[],
  key: 'projected' | 'sealed',
  count: number,
  windowSeconds: number,
): FollowerCatchUp {
  const done = samples.find((sample) => sample[key] >= count)?.at;
  const end = done ?? samples.at(-1)!.at;
  const valueAt = (t: number) => {
    const after = samples.findIndex((sample) => sample.at >= t);
    if (after <= 0) return samples[Math.max(after, 0)]![key];
    const [a, b] = [samples[after - 1]!, samples[after]!];
    return a[key] + ((b[key] - a[key]) * (t - a.at)) / (b.at - a.at);
  };
  const windows: number[] = [];
  let lastWindowSeconds = windowSeconds;
  for (let from = 0; from < end; from += windowSeconds) {
    const to = Math.min(from + windowSeconds, end);
    lastWindowSeconds = to - from;
    windows.push((valueAt(to) - valueAt(from)) / (to - from));
  }
  return { seconds: done, windows, lastWindowSeconds, windowSeconds };
}

/** One line of a follower's figures for the report. */
export function describeCatchUp(name: string, count: number, follower: FollowerCatchUp): string {
  const rate = (value: number) => Math.round(value).toLocaleString('en');
  const full = follower.windows.slice(
    0,
    follower.lastWindowSeconds < follower.windowSeconds ? -1 : undefined,
  );
  const caught =
    follower.seconds === undefined
      ? `had not caught up when the bound came`
      : `caught up in ${follower.seconds.toFixed(1)} s (${rate(count / follower.seconds)} events/s)`;
  return (
    `${name} ${caught}; events/s in each window: ${follower.windows.map(rate).join(', ')}` +
    ` (last ${follower.lastWindowSeconds.toFixed(1)} s); lowest full window: ` +
    `${full.length === 0 ? '–' : rate(Math.min(...full))}`
  );
}
