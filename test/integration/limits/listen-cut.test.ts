import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { postgresPeers } from '#rate-limit/postgres-peers.js';
import { withPort } from '../../support/database-url.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

/**
 * The partition drill once lost an API replica to its limits channel: the connection was cut while
 * LISTEN was in flight, so the session both emitted `error` and rejected the query, the client was
 * released twice and pg-pool's throw ended the process. Here a proxy in front of the real database
 * cuts every connection at its LISTEN until told to stop.
 */
const CHANNEL = 'listen_cut_test';
let database: TestDatabase;
let proxy: net.Server;
let cutAtListen = true;
let cuts = 0;

beforeAll(async () => {
  database = await createTestDatabase(2);
  const target = new URL(database.url);
  proxy = net.createServer((downstream) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    upstream.on('error', () => downstream.destroy());
    downstream.on('error', () => upstream.destroy());
    upstream.pipe(downstream);
    downstream.on('data', (chunk: Buffer) => {
      if (cutAtListen && chunk.includes(`LISTEN ${CHANNEL}`)) {
        cuts++;
        // What a partition does to a session mid-query: both ends gone, no reply.
        downstream.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
});

describe('the peers channel when its connection is cut during LISTEN', () => {
  it('survives the cut (no double release, no unhandled rejection) and listens again once the path heals', async () => {
    const port = (proxy.address() as net.AddressInfo).port;
    // The proxy's own address: the database's URL may say `localhost`, which can resolve to ::1.
    const through = new URL(withPort(database.url, port));
    through.hostname = '127.0.0.1';
    const pool = new pg.Pool({ connectionString: through.href, max: 2 });
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    const warnings: string[] = [];
    const key = randomBytes(32);
    const options = {
      channel: CHANNEL,
      key,
      schema: z.object({ n: z.number() }),
      name: 'test',
      keySetting: 'TEST_KEY',
    };
    const logger = { warn: (_: object, message: string) => void warnings.push(message) };
    const listener = postgresPeers(pool, { ...logger, debug: () => undefined }, options);
    const received: unknown[] = [];
    listener.subscribe((message) => received.push(message));
    try {
      await waitUntil(() => cuts >= 2);
      cutAtListen = false;
      // A peer on a direct path: its messages arrive once the listener is back.
      const sender = postgresPeers(
        database.pool,
        { warn: () => undefined, debug: () => undefined },
        options,
      );
      try {
        await waitUntil(
          async () => {
            sender.publish({ n: 7 });
            await new Promise((resolve) => setTimeout(resolve, 200));
            return received.length > 0;
          },
          Boolean,
          { timeoutMs: 15_000 },
        );
      } finally {
        await sender.close();
      }
      expect(received[0]).toEqual({ n: 7 });
      expect(rejections).toEqual([]);
      // Each cut was noticed and retried once: one warning per cut, not one per event.
      expect(warnings.length).toBeGreaterThanOrEqual(cuts);
      expect(warnings.length).toBeLessThanOrEqual(cuts + 1);
    } finally {
      process.off('unhandledRejection', onRejection);
      await listener.close();
      await pool.end();
    }
  }, 40_000);
});
