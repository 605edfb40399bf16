import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetcher, type GuardedFetcherOptions } from '../src/guarded-fetcher.js';
import { fetchJwks, guardedJwksFetch } from '../src/jwks-fetch.js';
import type { TargetRules } from '../src/target-rules.js';
import { slowDrip, until, type SlowDrip } from './slow-drip-server.js';

/** Development rules: loopback allowed. */
const rules: TargetRules = { production: false, allowHttpHosts: [], ownPorts: [] };
const fetcherWith = (options: Partial<GuardedFetcherOptions> = {}) =>
  createGuardedFetcher({
    rules,
    timeoutMs: 60_000,
    maxInFlight: 50,
    maxInFlightPerScope: 50,
    ...options,
  });
const peers: SlowDrip[] = [];
const peer = async () => {
  const drip = await slowDrip();
  peers.push(drip);
  return drip;
};
afterEach(async () => {
  await Promise.all(peers.splice(0).map((drip) => drip.close()));
});
const why = (fetching: Promise<unknown>) =>
  fetching.then(
    () => 'answered',
    (error: Error) => error.message,
  );

describe('an outbound fetch from a peer answering a byte a second', () => {
  it('ends at its wall-clock deadline though bytes keep coming, its connection closed', async () => {
    const drip = await peer();
    const fetcher = fetcherWith({ timeoutMs: 1500 });
    const jwks = fetchJwks(fetcher, drip.url(), { scope: 'space-a' });
    const document = fetcher.getJson(drip.url('/client'), { scope: 'space-a', maxBytes: 5 * 1024 });
    await until(() => drip.open() === 2);
    expect(await why(jwks)).toBe('jwks_uri: timed out');
    expect(await why(document)).toBe('timed out');
    await until(() => drip.open() === 0);
    expect(fetcher.inFlight()).toBe(0);
  });

  it("ends when the caller's signal aborts: the kit's own timeout reaches the guarded fetch", async () => {
    const drip = await peer();
    const fetcher = fetcherWith();
    // What the verifier kit's remote keys pass: a signal over the whole fetch.
    const kit = guardedJwksFetch(fetcher, 'space-a')(drip.url(), {
      signal: AbortSignal.timeout(1000),
    });
    expect(await why(kit)).toBe('jwks_uri: timed out');
    await until(() => drip.open() === 0);
    const controller = new AbortController();
    const asked = fetcher.getJson(drip.url('/other'), {
      scope: 'a',
      maxBytes: 100,
      signal: controller.signal,
    });
    await until(() => drip.open() === 1);
    controller.abort();
    expect(await why(asked)).toBe('aborted');
    await until(() => drip.open() === 0);
  });

  it('is one fetch per URL in flight: many callers, one request, each let go', async () => {
    const drip = await peer();
    const fetcher = fetcherWith({ timeoutMs: 1500 });
    const callers = Array.from({ length: 8 }, (_, index) =>
      why(fetchJwks(fetcher, drip.url(), { scope: `space-${index % 2}` })),
    );
    expect(await Promise.all(callers)).toEqual(Array(8).fill('jwks_uri: timed out'));
    expect(drip.requests()).toBe(1);
    // A caller that stops waiting does not end the fetch another still waits for.
    const leaving = new AbortController();
    const left = why(
      fetcher.getJson(drip.url('/two'), { scope: 'a', maxBytes: 100, signal: leaving.signal }),
    );
    const staying = why(fetcher.getJson(drip.url('/two'), { scope: 'a', maxBytes: 100 }));
    leaving.abort();
    expect(await left).toBe('aborted');
    expect(await staying).toBe('timed out');
    expect(drip.requests()).toBe(2);
    await until(() => drip.open() === 0);
  });

  it("is not joined once its last caller left: another space's caller never inherits that abort", async () => {
    const drip = await peer();
    const fetcher = fetcherWith({ timeoutMs: 1500 });
    const leaving = new AbortController();
    const url = drip.url('/left');
    const left = why(
      fetcher.getJson(url, { scope: 'space-a', maxBytes: 100, signal: leaving.signal }),
    );
    await until(() => drip.open() === 1);
    leaving.abort();
    // Asked in the same turn as the abort, before the aborted fetch has settled.
    const other = why(fetcher.getJson(url, { scope: 'space-b', maxBytes: 100 }));
    expect(await left).toBe('aborted');
    expect(await other).toBe('timed out');
    expect(drip.requests()).toBe(2);
    await until(() => drip.open() === 0);
  });

  it('is refused at once past the bounds per space and per process, and admitted again after', async () => {
    const drip = await peer();
    const fetcher = fetcherWith({ timeoutMs: 1500, maxInFlight: 3, maxInFlightPerScope: 2 });
    const ask = (path: string, scope: string) =>
      why(fetcher.getJson(drip.url(path), { scope, maxBytes: 100 }));
    const held = [ask('/a1', 'a'), ask('/a2', 'a')];
    expect(await ask('/a3', 'a')).toMatch(/^busy/);
    held.push(ask('/b1', 'b'));
    expect(await ask('/c1', 'c')).toMatch(/^busy/);
    expect(await Promise.all(held)).toEqual(Array(3).fill('timed out'));
    expect(drip.requests()).toBe(3);
    expect(await ask('/a3', 'a')).toBe('timed out');
    // A URL that is none fails as such and holds no share.
    expect(await why(fetcher.getJson('http://[bad', { scope: 'a', maxBytes: 1 }))).toBe(
      'not a URL',
    );
    expect(fetcher.inFlight()).toBe(0);
  });
});
