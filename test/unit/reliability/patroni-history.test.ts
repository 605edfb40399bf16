import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timelineSwitches } from '../../partitions/support/history.js';

// Patroni's GET /history as a leader rebuilt it: the entry for a timeline another node created
// and recorded nothing about comes from Postgres' own history file, without a time.
const HISTORY = [
  [1, 50331800, 'no recovery target specified', '2026-11-25T04:10:00.000000+00:00', 'pg1'],
  [2, 83886296, 'no recovery target specified'],
  [3, 100663512, 'no recovery target specified', '2026-11-25T04:11:00.000000+00:00', 'pg0'],
];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(HISTORY));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the partition drill's reading of Patroni's timeline history", () => {
  it('leaves a switch without a recorded time untimed, rather than at time 0 (which read as a switch back in time)', async () => {
    const switches = await timelineSwitches([url]);
    expect(switches).toEqual([
      { timeline: 1, switchedAt: Date.parse('2026-11-25T04:10:00Z') },
      { timeline: 2 },
      { timeline: 3, switchedAt: Date.parse('2026-11-25T04:11:00Z') },
    ]);
  });
});
