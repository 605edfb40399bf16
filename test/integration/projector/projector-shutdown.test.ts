import { createServer, connect as tcpConnect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/db/database.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { startProjector } from '../../../src/projections/projector.js';
import { createTestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';
import { tempDir } from '../../support/after-file.js';

/**
 * A TCP proxy to Postgres that can freeze: from then on it forwards nothing and answers no new
 * connection, as a database host that went away without a word (its container stopped beside
 * the projector at `docker-compose down`, a node lost) looks to its clients.
 */
async function freezableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let frozen = false;
  const server = createServer((client) => {
    sockets.add(client);
    if (frozen) return client.pause();
    const upstream = tcpConnect(Number(target.port), target.hostname);
    sockets.add(upstream);
    client.pipe(upstream).pipe(client);
    for (const socket of [client, upstream]) socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    freeze() {
      frozen = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const database = await createTestDatabase(2);
const direct = new URL(database.url);
const proxy = await freezableProxy(direct);
afterAll(() => proxy.close());
const proxied = new URL(database.url);
proxied.hostname = '127.0.0.1';
proxied.port = String(proxy.port);

describe('the projector at shutdown, when the database is gone (issue 40, item 12)', () => {
  it('gives up on it instead of waiting past its grace period, and says no checkpoint was written', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const handle = connect({
      url: proxied.toString(),
      poolSize: 2,
      applicationName: 'projector-shutdown-test',
      idleInTransactionTimeoutMs: 60_000,
    });
    const projector = startProjector({
      db: handle.db,
      url: proxied.toString(),
      projections: PROJECTIONS,
      batchSize: 100,
      pollIntervalMs: 50,
      logger,
      seal: true,
      checkpoints: {
        intervalMs: 60_000,
        signTreeHead: () => 'signature',
        dir: await tempDir('checkpoints-'),
      },
      giveUpAfterMs: 500,
    });
    await waitUntil(() => projector.isLeader(), Boolean, { timeoutMs: 20_000 });
    await projector.nextPass();
    proxy.freeze();
    // Before the fix, stop() waited on the leader's session forever (and compose's SIGKILL
    // came first): resolving at all is the behaviour under test.
    await projector.stop();
    expect(lines.join('')).toContain('no checkpoint at shutdown: the database is gone');
  }, 60_000);
});
