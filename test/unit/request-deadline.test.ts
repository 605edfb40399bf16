import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { deadlineOf, deadlinesHeld, withinDeadline } from '#event-log/append-deadline.js';
import { createApp } from '../../src/http/app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('request deadline', () => {
  it('answers 503 with Retry-After when a handler never finishes, and leaves other requests alone', async () => {
    const router = new Router();
    router.get('/stuck', () => new Promise<void>(() => undefined));
    router.get('/quick', (ctx) => void (ctx.body = { ok: true }));
    const app = createApp({
      logger: pino({ level: 'silent' }),
      routers: [router],
      trustedProxyHops: 0,
      deadlineMs: 300,
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      const [stuck, quick] = await Promise.all([fetch(`${base}/stuck`), fetch(`${base}/quick`)]);
      const waited = Date.now() - started;
      expect(quick.status).toBe(200);
      expect(stuck.status).toBe(503);
      expect(stuck.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await stuck.json()).toMatchObject({ code: 'unavailable' });
      expect(waited).toBeGreaterThanOrEqual(290);
      expect(waited).toBeLessThan(3000);
      // A later request gets its own full deadline (the sweep restarts after going idle).
      const again = Date.now();
      expect((await fetch(`${base}/stuck`)).status).toBe(503);
      expect(Date.now() - again).toBeGreaterThanOrEqual(290);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('writes nothing once the caller was told no; a write begun before is answered, not 503', async () => {
    const router = new Router();
    const wrote: string[] = [];
    const held = deadlinesHeld();
    // A write names its request, as an event's metadata does: that is how it finds the deadline.
    const write = (requestId: string, what: string, ms: number) =>
      withinDeadline(deadlineOf(requestId), async () => {
        await sleep(ms);
        wrote.push(what);
      });
    router.get('/late', async (ctx) => {
      await sleep(600);
      await write(ctx.state.requestId, 'late', 0).catch((error: Error) =>
        wrote.push(`refused: ${error.message}`),
      );
      ctx.body = { ok: true };
    });
    router.get('/writing', async (ctx) => {
      await write(ctx.state.requestId, 'committed', 600);
      ctx.body = { recorded: true };
    });
    const app = createApp({
      logger: pino({ level: 'silent' }),
      routers: [router],
      trustedProxyHops: 0,
      deadlineMs: 300,
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const late = await fetch(`${base}/late`);
      expect(late.status).toBe(503);
      const writing = await fetch(`${base}/writing`);
      expect(writing.status).toBe(200);
      expect(await writing.json()).toEqual({ recorded: true });
      await sleep(400);
      expect(wrote.sort()).toEqual([
        'committed',
        'refused: the request was answered (past its deadline) before the write began',
      ]);
      // Each let go once its handler settled, the one answered 503 too: none kept per request.
      expect(deadlinesHeld()).toBe(held);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
