import pg from 'pg';
import { freePort as freePortBelow32768 } from '../src/net/free-port.js';
import { peerTokenRequest } from './peer-client.js';
import { startProcess, waitFor } from './processes.js';
import type { createMeasurer } from './measure.js';

/**
 * node-oidc-provider in its durable shape (bench/peer-oidc-provider.ts with PEER_DATABASE_URL), on
 * its own database of the bench's server, so its commits share our disk and WAL; `tokens` counts
 * the access tokens it committed.
 */
export async function startDurablePeer(admin: pg.Pool, serverUrl: string) {
  await admin.query('CREATE DATABASE oidc_peer');
  const url = new URL(serverUrl);
  url.pathname = '/oidc_peer';
  const port = await freePortBelow32768();
  const child = startProcess('bench/peer-oidc-provider.ts', {
    PORT: String(port),
    PEER_DATABASE_URL: url.toString(),
  });
  await waitFor(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  const request = peerTokenRequest(port);
  const tokens = async () =>
    Number(
      (
        await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM oidc_payloads WHERE type = 'ClientCredentials'`,
        )
      ).rows[0]!.n,
    );
  return {
    request,
    /** One measured round, its committed tokens counted against its 200s. */
    round: (measure: ReturnType<typeof createMeasurer>, round: number) =>
      measure.reference(
        `node-oidc-provider client_credentials, opaque, in Postgres (durable peer), round ${round}`,
        child,
        request,
        tokens,
      ),
    close: () => pool.end(),
  };
}
