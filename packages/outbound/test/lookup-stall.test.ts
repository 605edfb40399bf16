import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetcher, FetchBusyError } from '../src/guarded-fetcher.js';
import { newWebhookSecret } from '../src/standard-webhooks.js';
import type { Resolver } from '../src/guarded-lookup.js';
import type { TargetRules } from '../src/target-rules.js';
import { DeliveryError } from '../src/transport.js';
import { webhookTransport } from '../src/webhook.js';

const rules: TargetRules = { production: false, allowHttpHosts: [], ownPorts: [] };

/**
 * A nameserver that never answers, as `dns.lookup` meets it: each lookup holds a libuv pool
 * thread, here by opening a FIFO for reading, which blocks its thread until a writer opens it.
 * `release` opens it (read-write never blocks on Linux), freeing every stuck thread at once.
 */
function stallingResolver() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dns-stall-'));
  const fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const state = { started: 0, returned: 0 };
  const resolve: Resolver = (_hostname, _options, callback) => {
    state.started += 1;
    fs.open(fifo, 'r', (error, fd) => {
      state.returned += 1;
      if (!error) fs.closeSync(fd);
      callback(Object.assign(new Error('stalled'), { code: 'EAI_AGAIN' }), []);
    });
  };
  const release = async () => {
    const writer = fs.openSync(fifo, 'r+');
    await until(() => state.returned === state.started);
    fs.closeSync(writer);
    fs.rmSync(dir, { recursive: true });
  };
  return { resolve, state, release };
}

async function until(done: () => boolean) {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

/** A call that needs a free pool thread: settles `true`, or `false` if none came within 3 s. */
const poolAnswers = () =>
  Promise.race([
    new Promise<boolean>((r) => crypto.pbkdf2('p', 's', 1, 32, 'sha256', () => r(true))),
    new Promise<boolean>((r) => setTimeout(() => r(false), 3000)),
  ]);

const releases: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(releases.splice(0).map((release) => release()));
});

describe('a nameserver that never answers', () => {
  it('holds at most the bound of pool threads; the rest are refused busy at once, all by the deadline', async () => {
    const stall = stallingResolver();
    releases.push(stall.release);
    const fetcher = createGuardedFetcher({
      rules,
      timeoutMs: 300,
      maxInFlight: 50,
      maxInFlightPerScope: 50,
      resolve: stall.resolve,
    });
    const fetches = Array.from({ length: 10 }, (_, i) =>
      fetcher
        .getJson(`https://stall-${i}.example/jwks`, { maxBytes: 1000, scope: `space-${i}` })
        .then(
          () => 'answered',
          (error: Error) => (error instanceof FetchBusyError ? 'busy' : error.message),
        ),
    );
    const ended = await Promise.all(fetches);
    // The pool still serves the rest of the process (crypto, fs, zlib).
    expect(await poolAnswers()).toBe(true);
    // Every caller let go by its deadline, while the stalled lookups still hold their threads.
    expect(stall.state.returned).toBe(0);
    expect(stall.state.started).toBe(2);
    expect(ended.filter((why) => why === 'timed out')).toHaveLength(2);
    expect(ended.filter((why) => why === 'busy')).toHaveLength(8);
    // Past the deadline the lookups still pending are still counted: one more is refused busy.
    await expect(
      fetcher.getJson('https://stall-late.example/jwks', { maxBytes: 1000, scope: 'other' }),
    ).rejects.toBeInstanceOf(FetchBusyError);
    // Once the resolver returns, its share is free again.
    await stall.release();
    releases.length = 0;
    await expect(
      fetcher.getJson('https://stall-again.example/jwks', { maxBytes: 1000, scope: 'other' }),
    ).rejects.toThrow('name did not resolve');
  });

  it('a sink meeting the bound is refused connect_failed (retried later) without a lookup', async () => {
    const stall = stallingResolver();
    releases.push(stall.release);
    const fetcher = createGuardedFetcher({
      rules,
      timeoutMs: 200,
      maxInFlight: 50,
      maxInFlightPerScope: 50,
      resolve: stall.resolve,
    });
    const stalled = ['a', 'b'].map((i) =>
      fetcher.getJson(`https://stall-${i}.example/`, { maxBytes: 10, scope: i }).catch(() => {}),
    );
    await Promise.all(stalled);
    expect(stall.state.started - stall.state.returned).toBe(2);
    let asked = 0;
    const sink = webhookTransport({
      url: 'http://sink.example:1/intake',
      secret: newWebhookSecret(),
      issuer: 'https://auth.example.test',
      app: 'token-authority',
      timeoutMs: 2000,
      rules,
      resolve: (_hostname, _options, callback) => {
        asked += 1;
        callback(null, [{ address: '127.0.0.1', family: 4 }]);
      },
    });
    const refused = await sink.probe().catch((error: unknown) => error);
    sink.close();
    expect(refused).toBeInstanceOf(DeliveryError);
    expect((refused as DeliveryError).failure).toBe('connect_failed');
    expect(asked).toBe(0);
  });
});
