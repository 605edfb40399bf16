import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { mintDevLoginToken } from '../../../src/crypto/login-tokens.js';
import type { DriverStall, RequestRecord } from '../../../tools/reliability/partition-checker.js';

/** What `npm run fleet -- status` prints (the parts the drills read). */
export interface Fleet {
  lb_url: string;
  api_pids: number[];
  owner_url: string;
  pg: { name: string; role: string; url: string; pid: number | null; patroni_pid: number | null }[];
  projectors: { pid: number; leader: boolean }[];
}

/** REQUEST_DEADLINE_MS's default: no request may wait longer. */
export const DEADLINE_MS = 5000;

/** A fleet in a folder of its own, driven through the real `npm run fleet` command line. */
export function fleetIn(prefix: string) {
  const dir = mkdtempSync(`/tmp/${prefix}-`);
  const run = (...args: string[]) => {
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'tools/cli/fleet.ts', ...args, `--dir=${dir}`],
      { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' }, timeout: 240_000 },
    );
    if (result.status !== 0) throw new Error(`fleet ${args[0]} failed: ${result.stderr}`);
    return result.stdout.trim().split('\n').at(-1)!;
  };
  return {
    dir,
    up: (...args: string[]) => JSON.parse(run('up', ...args)) as Fleet,
    status: () => JSON.parse(run('status')) as Fleet,
    /** status() without blocking: for use while a load times its answers on this event loop. */
    statusNow: () => fleetStatusIn(dir),
    down: () => void run('down'),
  };
}

/** `npm run fleet -- status` of the fleet in `dir`, asked without blocking this event loop. */
export function fleetStatusIn(dir: string): Promise<Fleet> {
  return new Promise<Fleet>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'tools/cli/fleet.ts', 'status', `--dir=${dir}`],
      {
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'warn' },
        timeout: 60_000,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`fleet status failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Fleet);
      },
    );
  });
}

/** A credential in `space`, created through the balancer with a development login token. */
export async function drillCredential(fleet: Fleet, dir: string, space: string) {
  const login = await mintDevLoginToken({
    dataDir: path.join(dir, 'data'),
    audience: 'token-authority',
    spacesClaim: 'spaces',
    subject: 'drill',
    spaces: [space],
    ttlSeconds: 600,
  });
  const response = await fetch(`${fleet.lb_url}/v1/credential`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${login}`,
      'x-service-space-id': space,
      'content-type': 'application/json',
    },
    // The space's ceiling as its budget: the default (500 a second) is within reach of a fleet on
    // two cores once a fault heals, and a drill of partitions is not one of budgets — a 20-minute
    // run answered 246 requests 429 with the default.
    body: JSON.stringify({
      name: 'drill',
      description: 'failover drill',
      rate_limit_per_minute: 120_000,
    }),
  });
  if (response.status !== 201) throw new Error(`credential: ${response.status}`);
  return (await response.json()) as { client_id: string; client_secret: string };
}

/** How often a load's ticker runs, and how late it may come before its loop counts as stalled. */
const TICK_MS = 100;
const STALL_MS = 250;

/**
 * Token requests through the balancer, `width` at a time, until `stop()`; every answer recorded
 * (`outcomes`), a few tokens kept for `takeToken()`, and after a refusal a pause of `pauseMs`. A
 * ticker records when this event loop stood still (`stalls`): an answer that came meanwhile was
 * timed late, by the driver, not the service (partition-checker's `earliestAnswer`). `fromService`:
 * the body was JSON, the API's (HAProxy's own 503 is HTML).
 */
export function steadyLoad(
  lbUrl: string,
  credential: { client_id: string; client_secret: string },
  width: number,
  pauseMs = 100,
) {
  const outcomes: (RequestRecord & { readonly fromService: boolean })[] = [];
  const tokens: string[] = [];
  const stalls: DriverStall[] = [];
  let running = true;
  let lastTick = Date.now();
  const ticker = setInterval(() => {
    const now = Date.now();
    // From the last tick: the loop may have stopped right after it.
    if (now - lastTick > TICK_MS + STALL_MS) stalls.push({ from: lastTick, to: now });
    lastTick = now;
  }, TICK_MS).unref();
  const one = async (): Promise<(typeof outcomes)[number]> => {
    const startedAt = Date.now();
    try {
      const response = await fetch(`${lbUrl}/v1/credential/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...credential,
          grant_type: 'client_credentials',
          audience: 'storefront.api.local',
        }),
        // Past the deadline plus a margin: a request still open then is a hang, recorded as such.
        signal: AbortSignal.timeout(DEADLINE_MS + 5000),
      });
      // A body that is not JSON (HAProxy's own 503) still has its status; a 200 needs its token.
      const body = (await response.json().catch(() => undefined)) as
        { access_token?: string } | undefined;
      if (body?.access_token && tokens.length < 200) tokens.push(body.access_token);
      return {
        status: response.status === 200 && !body?.access_token ? 0 : response.status,
        fromService: body !== undefined,
        startedAt,
        endedAt: Date.now(),
        retryAfter: response.headers.get('retry-after'),
        jti: body?.access_token ? (decodeJwt(body.access_token).jti as string) : undefined,
      };
    } catch {
      return { status: 0, fromService: false, startedAt, endedAt: Date.now(), retryAfter: null };
    }
  };
  const loops = Array.from({ length: width }, async () => {
    while (running) {
      const outcome = await one();
      outcomes.push(outcome);
      if (outcome.status !== 200) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  });
  return {
    outcomes,
    stalls,
    /** A token answered 200 and not handed out before. */
    takeToken: () => tokens.shift(),
    stop: async () => {
      running = false;
      try {
        await Promise.all(loops);
      } finally {
        clearInterval(ticker);
      }
    },
  };
}
/** Rows from the database behind `url` (the owner's, through HAProxy: the current leader). */
export async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The jtis of `served` that have their issuance event in the database behind `url`. */
export async function issuedFound(url: string, served: readonly string[]): Promise<number> {
  const rows = await query<{ stream_id: string }>(
    url,
    // A token's stream is named after its jti (the event does not repeat it: stored-form.ts).
    `SELECT stream_id FROM events WHERE event_type = 'private-token-issued'
      AND stream_id = ANY($1::text[])`,
    [served.map((jti) => `token-${jti}`)],
  );
  return rows.length;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Changes the cluster's dynamic configuration through Patroni's REST API (any live node). */
export async function patchPatroniConfig(dir: string, patch: object): Promise<void> {
  const state = JSON.parse(readFileSync(path.join(dir, 'fleet.json'), 'utf8')) as {
    pg: { restPort: number }[];
  };
  for (const node of state.pg) {
    const response = await fetch(`http://127.0.0.1:${node.restPort}/config`, {
      method: 'PATCH',
      body: JSON.stringify(patch),
    }).catch(() => undefined);
    if (response?.ok) return;
  }
  throw new Error('no Patroni node took the configuration change');
}
