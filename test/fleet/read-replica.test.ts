import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevLoginToken } from '../../src/crypto/login-tokens.js';
import {
  drillCredential,
  fleetIn,
  patchPatroniConfig,
  sleep,
  steadyLoad,
  type Fleet,
} from './support/drill.js';

/**
 * Audit and monitoring reads go to the replicas (READ_DATABASE_URL, HAProxy's read port) while
 * they keep up, to the primary when one falls behind, and every answer says which.
 */
const fleet = fleetIn('token-authority-reads');
const SPACE = 'reads-space';
let started: Fleet;
let credential: { client_id: string; client_secret: string };
let login: string;

beforeAll(async () => {
  started = fleet.up('--api-replicas=1', '--pg-nodes=2');
  credential = await drillCredential(started, fleet.dir, SPACE);
  login = await mintDevLoginToken({
    dataDir: path.join(fleet.dir, 'data'),
    audience: 'token-authority',
    spacesClaim: 'spaces',
    subject: 'auditor',
    spaces: [SPACE],
    ttlSeconds: 600,
  });
}, 300_000);
afterAll(() => fleet.down(), 120_000);

const source = async () => {
  const response = await fetch(`${started.lb_url}/v1/audit/events?limit=1`, {
    headers: { authorization: `Bearer ${login}`, 'x-service-space-id': SPACE },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return {
    source: response.headers.get('x-data-source'),
    lagMs: Number(response.headers.get('x-data-lag-ms')),
  };
};
const until = async (want: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  let seen = await source();
  while (seen.source !== want && Date.now() < deadline) {
    await sleep(250);
    seen = await source();
  }
  return seen;
};

describe('reads from a replica', () => {
  it('served by the replica while it keeps up, by the primary once it falls behind, and back', async () => {
    const load = steadyLoad(started.lb_url, credential, 2);
    try {
      expect((await until('replica', 10_000)).source).toBe('replica');
      // The replica keeps receiving (so synchronous commits go on) but replays 8 s late; set
      // through Patroni, which owns the recovery settings.
      const delay = (value: string) =>
        patchPatroniConfig(fleet.dir, {
          postgresql: { parameters: { recovery_min_apply_delay: value } },
        });
      await delay('8s');
      try {
        // Past READ_REPLICA_MAX_LAG_MS (5 s): the primary answers, and says so.
        const behind = await until('primary', 15_000);
        expect(behind).toEqual({ source: 'primary', lagMs: 0 });
      } finally {
        await delay('0');
      }
      const caughtUp = await until('replica', 15_000);
      expect(caughtUp.source).toBe('replica');
      expect(caughtUp.lagMs).toBeLessThanOrEqual(5000);
    } finally {
      await load.stop();
    }
  }, 120_000);
});
