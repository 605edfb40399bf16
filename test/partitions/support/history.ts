import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeJwt } from 'jose';
import pg from 'pg';
import { loadAuditPublicKey } from '../../../src/audit-trail/audit-key.js';
import { judgeLog, waitForProjector } from '../../../tools/reliability/oracle.js';
import type {
  DriverStall,
  LoggedToken,
  PartitionHistory,
  RequestRecord,
  TimelineSwitch,
} from '../../../tools/reliability/partition-checker.js';
import { DEADLINE_MS } from '../../fleet/support/drill.js';

type Credential = { client_id: string; client_secret: string };

/** Revokes `token` through the balancer; its jti when the revocation was acknowledged. */
export async function revoke(lbUrl: string, credential: Credential, token: string) {
  const response = await fetch(`${lbUrl}/v1/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...credential, token }),
    signal: AbortSignal.timeout(DEADLINE_MS + 5000),
  }).catch(() => undefined);
  return response?.status === 200 ? (decodeJwt(token).jti as string) : undefined;
}

/** The timeline switches in Patroni's history (GET /history on any node that answers). */
export async function timelineSwitches(restUrls: readonly string[]): Promise<TimelineSwitch[]> {
  for (const url of restUrls) {
    const response = await fetch(`${url}/history`, { signal: AbortSignal.timeout(2000) }).catch(
      () => undefined,
    );
    if (!response?.ok) continue;
    const rows = (await response.json()) as [number, number, string, string?][];
    return rows.map(([timeline, , , at]) => ({
      timeline,
      // Entries Patroni rebuilt from Postgres' timeline history carry no time (not 0).
      ...(at ? { switchedAt: Date.parse(at) } : {}),
    }));
  }
  throw new Error('no Patroni node answered GET /history');
}

/** Heads the projectors' logs say a witness refused or held another root of (a fork). */
export function witnessRefusals(dir: string): number {
  const lines = readdirSync(dir)
    .filter((name) => /^projector\d+\.log$/.test(name))
    .flatMap((name) => readFileSync(path.join(dir, name), 'utf8').split('\n'))
    .filter((line) =>
      /witness (refused the tree head|holds another root|has cosigned a larger)/.test(line),
    );
  // Which kind, for which tree and sizes: what tells a fork from a stale head when one shows.
  for (const line of lines.slice(0, 10)) console.log(`witness refusal: ${line.slice(0, 400)}`);
  return lines.length;
}

/**
 * The history, read from the final leader (through HAProxy's write port, `ownerUrl`) once the
 * projector has caught up.
 */
export async function gatherHistory(options: {
  readonly ownerUrl: string;
  readonly dir: string;
  readonly restUrls: readonly string[];
  readonly requests: readonly RequestRecord[];
  readonly stalls: readonly DriverStall[];
  readonly revoked: readonly string[];
}): Promise<PartitionHistory & { readonly projectorCaughtUp: boolean }> {
  const pool = new pg.Pool({ connectionString: options.ownerUrl, max: 2 });
  try {
    const projectorCaughtUp = await waitForProjector(pool, 120_000);
    const acknowledged = options.requests.flatMap((r) => (r.status === 200 ? [r.jti!] : []));
    // The fleet's audit key (its DATA_DIR): a head re-signed by anyone else is a finding.
    const { publicKey } = await loadAuditPublicKey(undefined, path.join(options.dir, 'data'));
    const verdict = await judgeLog(pool, acknowledged, { publicKey });
    const { rows: logged } = await pool.query<{ jti: string; committed_at: Date | null }>(
      `SELECT substr(stream_id, 7) AS jti, pg_xact_commit_timestamp(xmin) AS committed_at
         FROM events WHERE event_type = 'private-token-issued'
          AND stream_id = ANY($1::text[])`,
      [acknowledged.map((jti) => `token-${jti}`)],
    );
    const { rows: positions } = await pool.query<{ p: string }>(
      'SELECT global_position::text AS p FROM events',
    );
    const switches = await timelineSwitches(options.restUrls);
    const lastSwitch = Math.max(0, ...switches.map((change) => change.switchedAt ?? 0));
    const { rows: cosigned } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM merkle_cosignatures WHERE received_at > $1',
      [new Date(lastSwitch)],
    );
    const { rows: held } = await pool.query<{ jti: string }>(
      'SELECT jti FROM token_revocations WHERE jti = ANY($1::text[])',
      [options.revoked],
    );
    const heldSet = new Set(held.map((row) => row.jti));
    return {
      projectorCaughtUp,
      requests: options.requests,
      loggedTokens: logged.map((row): LoggedToken => ({
        jti: row.jti,
        committedAt: row.committed_at?.getTime() ?? null,
      })),
      positions: positions.map((row) => row.p),
      switches,
      views: {
        ok: verdict.views.ok && verdict.logTree.ok,
        detail: JSON.stringify({ views: verdict.views, logTree: verdict.logTree }).slice(0, 2000),
      },
      witness: { cosignedAfterLastSwitch: cosigned[0]!.n, refused: witnessRefusals(options.dir) },
      revocations: options.revoked.map((jti) => ({ jti, heldAfter: heldSet.has(jti) })),
      deadlineMs: DEADLINE_MS,
      graceMs: 1500,
      driverStalls: options.stalls,
    };
  } finally {
    await pool.end();
  }
}
