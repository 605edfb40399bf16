import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-log/types.js';
import { transportFor } from '../../src/delivery/transports.js';
import type { SinkDefinition } from '../../src/delivery/sinks.js';
import type { SignalSigner } from '../../src/crypto/signal-signing.js';

const at = new Date(Date.UTC(2026, 10, 30, 12));
const revoked = (i: number) =>
  ({
    globalPosition: i,
    transactionId: '9',
    spaceId: 's1',
    streamId: `token-${i}`,
    streamPosition: 1,
    eventId: `ev-${i}`,
    type: 'token-revoked',
    schemaVersion: 1,
    data: {
      client_id: 'ci_a',
      jti: `tok-${i}`,
      token_kind: 'private',
      expires_at: at.toISOString(),
      revoked_by: 'client:ci_a',
    },
    metadata: { actor: 'user:u1', request_id: `req-${i}`, client_ip: '127.0.0.1' },
    recordedAt: at,
  }) satisfies RecordedEvent;

let server: http.Server | undefined;
afterEach(() => server?.close());

async function receiver(answer: (n: number) => number) {
  let n = 0;
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n += 1;
      res.statusCode = answer(n);
      res.end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/push`;
  return { url, posts: () => n };
}

const sinkAt = (url: string) =>
  ({
    sinkId: 'snk_x',
    spaceId: 's1',
    name: 'signals',
    target: { kind: 'webhook', url, format: 'secevent' },
    secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    url,
    paused: false,
  }) as unknown as SinkDefinition;

const rules = { production: false, allowHttpHosts: [], ownPorts: [] };

describe('attack: signal stream transport', () => {
  it('close() (stop on DELETE/PATCH) while a SET is being signed does not stop the batch', async () => {
    const rx = await receiver(() => 202);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let signs = 0;
    const signals: SignalSigner = {
      issuer: (s) => `https://ta.test/spaces/${s}`,
      async sign() {
        signs += 1;
        if (signs === 2) await gate; // close() lands while the 2nd SET is signed
        return 'a.b.c';
      },
    };
    const transport = transportFor(sinkAt(rx.url), { issuer: 'x', timeoutMs: 2000, rules, signals });
    const events = Array.from({ length: 20 }, (_, i) => revoked(i + 1));
    const sending = transport.send({ id: 'b', events } as never);
    while (signs < 2) await new Promise((r) => setTimeout(r, 5));
    transport.close(); // what SinkLoop.stop() does
    release();
    await sending.catch(() => undefined);
    // Desired: nothing (or at most the one in flight) is posted after close.
    expect(rx.posts()).toBeLessThanOrEqual(2);
  });

  it('a receiver refusing the last SET of a batch makes every retry re-sign and re-post the whole batch', async () => {
    const batch = 50;
    const rx = await receiver((n) => (n % batch === 0 ? 500 : 202));
    let signs = 0;
    const signals: SignalSigner = {
      issuer: (s) => `https://ta.test/spaces/${s}`,
      async sign() {
        signs += 1;
        return 'a.b.c';
      },
    };
    const transport = transportFor(sinkAt(rx.url), { issuer: 'x', timeoutMs: 2000, rules, signals });
    const events = Array.from({ length: batch }, (_, i) => revoked(i + 1));
    for (let attempt = 0; attempt < 3; attempt++) {
      await transport.send({ id: 'b', events } as never).catch(() => undefined);
    }
    transport.close();
    // Desired: acknowledged SETs are not signed and sent again (progress kept within a batch).
    expect(signs).toBeLessThanOrEqual(batch + 2);
  });
});
