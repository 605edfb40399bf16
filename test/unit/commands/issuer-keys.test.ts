import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetcher } from '#outbound/guarded-fetcher.js';
import { createIssuerKeys } from '../../../src/commands/trusted-issuer/issuer-keys.js';
import type { TrustedIssuerState } from '../../../src/domain/trusted-issuer/decide.js';

/** Two trusted issuers' JWKS endpoints on loopback, each counting the GETs it answered. */
const fetches: Record<string, number> = {};
let server: http.Server;
let base: string;
let published: object;

beforeAll(async () => {
  const { publicKey } = await generateKeyPair('ES256');
  published = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] };
  server = http.createServer((request, response) => {
    fetches[request.url!] = (fetches[request.url!] ?? 0) + 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(published));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

const issuerAt = (path: string, jwksUri = `${base}/${path}`): TrustedIssuerState => ({
  issuerId: `tis_${path}`,
  spaceId: 'space-a',
  removed: false,
  definition: {
    iss: `https://${path}.example`,
    jwks_uri: jwksUri,
    audience: 'a',
    rules: [],
  },
});
const header = (kid: string) => ({ alg: 'ES256', kid });
const clock = { now: 1_000_000 };
const keysWith = (maxEntries: number) =>
  createIssuerKeys({
    fetcher: createGuardedFetcher({
      rules: { production: false, allowHttpHosts: [], ownPorts: [] },
      timeoutMs: 5000,
      maxInFlight: 10,
      maxInFlightPerScope: 10,
    }),
    timeoutMs: 5000,
    maxEntries,
    now: () => clock.now,
  });

describe("a trusted issuer's keys from its jwks_uri", () => {
  it('are fetched when asked to refresh, and again for an unknown kid at most every 30 s', async () => {
    const keys = keysWith(10);
    const issuer = issuerAt('one');
    await expect(keys.keysOf(issuer)).resolves.toBeTypeOf('function');
    const getKey = await keys.keysOf(issuer, { refresh: true });
    expect(getKey(header('k1'), undefined as never)).toBeDefined();
    expect(() => getKey(header('k2'), undefined as never)).toThrow(errors.JWKSNoMatchingKey);
    clock.now += 29_000;
    await keys.keysOf(issuer, { refresh: true });
    expect(fetches['/one']).toBe(1);
    clock.now += 2_000;
    await keys.keysOf(issuer, { refresh: true });
    expect(fetches['/one']).toBe(2);
  });

  it('are held for at most maxEntries URLs: the least recently used is fetched anew', async () => {
    const keys = keysWith(1);
    await keys.keysOf(issuerAt('two'), { refresh: true });
    await keys.keysOf(issuerAt('three'), { refresh: true });
    const getKey = await keys.keysOf(issuerAt('two'));
    expect(() => getKey(header('k1'), undefined as never)).toThrow(errors.JWKSNoMatchingKey);
    await keys.keysOf(issuerAt('two'), { refresh: true });
    expect([fetches['/two'], fetches['/three']]).toEqual([2, 1]);
  });

  it('rejects a refresh whose fetch failed, with why as a class, not the socket error; another issuer is not held back', async () => {
    const keys = keysWith(10);
    const down = issuerAt('down', 'http://127.0.0.1:1/down');
    const why = await keys.keysOf(down, { refresh: true }).catch((error: Error) => error.message);
    expect(why).toBe('jwks_uri: connection refused');
    await expect(keys.keysOf(issuerAt('four'), { refresh: true })).resolves.toBeTypeOf('function');
  });
});
