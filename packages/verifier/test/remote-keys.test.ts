import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { publicKeysOf, remotePublicKeys, type RemoteKeysOptions } from '../src/remote-keys.js';

// Issue 51, item 2: the kit refetched the JWKS only for a kid it did not hold, so a key the issuer
// retired as compromised stayed trusted for as long as the process lived (seen 355 s after).
const jwk = (kid: string) => ({
  ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }),
  kid,
  alg: 'EdDSA',
  use: 'sig',
});

/**
 * An issuer's JWKS endpoint on a clock of the test's own: `published()` is what it serves (it
 * refuses the connection while `up()` is false), with `Cache-Control: max-age=<maxAge>`.
 */
function issuer(
  maxAge: number | undefined,
  published: () => object[],
  up: () => boolean = () => true,
  options?: RemoteKeysOptions,
) {
  const state = { clock: 1_000_000, fetches: 0 };
  const fakeFetch = (async () => {
    state.fetches += 1;
    if (!up()) throw new Error('connect ECONNREFUSED');
    const headers = maxAge === undefined ? undefined : { 'cache-control': `max-age=${maxAge}` };
    return new Response(JSON.stringify({ keys: published() }), { headers });
  }) as typeof fetch;
  const keys = remotePublicKeys(
    'https://issuer.test/.well-known/jwks.json',
    fakeFetch,
    () => state.clock,
    options,
  );
  return { state, keys };
}

describe('the kit’s JWKS cache', () => {
  it('drops a key the issuer withdrew once the max-age it gave has passed', async () => {
    let published = [jwk('old'), jwk('new')];
    const { state, keys } = issuer(300, () => published);
    await keys.refreshSoon();
    expect(keys.publicKey('old')).toBeDefined();
    // The issuer retires "old"; within the lifetime it gave, the held set still serves.
    published = [published[1]!];
    state.clock += 299_000;
    expect(keys.publicKey('old')).toBeDefined();
    expect(state.fetches).toBe(1);
    // Past it, the held set names no key until it is fetched again, and then not the retired one.
    state.clock += 2_000;
    expect(keys.publicKey('old')).toBeUndefined();
    await keys.refreshSoon();
    expect(state.fetches).toBe(2);
    expect(keys.publicKey('old')).toBeUndefined();
    expect(keys.publicKey('new')).toBeDefined();
  });

  it('keeps serving the held keys for 30 s when the issuer cannot be reached, then tries again', async () => {
    let up = true;
    const published = [jwk('k')];
    const { state, keys } = issuer(
      60,
      () => published,
      () => up,
    );
    await keys.refreshSoon();
    up = false;
    state.clock += 61_000;
    expect(keys.publicKey('k')).toBeUndefined();
    await keys.refreshSoon();
    expect(keys.publicKey('k')).toBeDefined();
    state.clock += 31_000;
    expect(keys.publicKey('k')).toBeUndefined();
  });

  it('refetches for an unknown kid no sooner than the holder says, and holds an answer without max-age as long as it says', async () => {
    const published = [jwk('k')];
    const { state, keys } = issuer(undefined, () => published, undefined, {
      refetchAfterMs: 30_000,
      defaultMaxAgeSeconds: 600,
    });
    await keys.refreshSoon();
    state.clock += 29_000;
    await keys.refreshSoon();
    expect(state.fetches).toBe(1);
    state.clock += 2_000;
    await keys.refreshSoon();
    expect(state.fetches).toBe(2);
    state.clock += 599_000;
    expect(keys.publicKey('k')).toBeDefined();
    state.clock += 2_000;
    expect(keys.publicKey('k')).toBeUndefined();
  });
});

describe('keys given inline', () => {
  it('are held as given, by kid; one without a kid answers a token naming none', () => {
    const { kid: _kid, ...unnamed } = jwk('x');
    const keys = publicKeysOf({ keys: [jwk('k'), unnamed, { kty: 'nonsense', kid: 'bad' }] });
    expect(keys.publicKey('k')).toBeDefined();
    expect(keys.publicKey('')).toBeDefined();
    expect(keys.publicKey('bad')).toBeUndefined();
    expect(keys.publicKey('x')).toBeUndefined();
  });
});

/** An issuer whose JWKS endpoint answers a 200 and then a byte (a JSON space) a second. */
async function slowDrip() {
  const open = new Set<Socket>();
  let requests = 0;
  const server = http.createServer((_request, response) => {
    requests += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).write(' ');
    const timer = setInterval(() => response.write(' '), 1000);
    response.on('close', () => clearInterval(timer));
  });
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`,
    requests: () => requests,
    open: () => open.size,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("the kit's remote keys from an issuer answering a byte a second", () => {
  it('end the fetch at its deadline (headers and body), the connection closed', async () => {
    const drip = await slowDrip();
    try {
      const keys = remotePublicKeys(drip.url, fetch, Date.now, { timeoutMs: 1000 });
      await keys.refreshSoon();
      expect(keys.publicKey('any')).toBeUndefined();
      for (let waited = 0; drip.open() > 0 && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(drip.open()).toBe(0);
      expect(drip.requests()).toBe(1);
    } finally {
      await drip.close();
    }
  });
});
