import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetcher } from '../src/guarded-fetcher.js';
import { guardedJwksFetch } from '../src/jwks-fetch.js';
import type { TargetRules } from '../src/target-rules.js';

/** Development rules: loopback allowed but for the service's own port. */
const rules: TargetRules = { production: false, allowHttpHosts: [], ownPorts: [8080] };
const servers: http.Server[] = [];
afterEach(() => servers.splice(0).forEach((server) => server.close()));

/** A JWKS endpoint on loopback answering `answer` to each GET; its URL. */
async function endpoint(answer: (response: http.ServerResponse) => void): Promise<string> {
  const server = http.createServer((_request, response) => answer(response));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
}

const KEY = {
  kty: 'OKP',
  crv: 'Ed25519',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  kid: 'k',
};
const fetcher = createGuardedFetcher({
  rules,
  timeoutMs: 2000,
  maxInFlight: 10,
  maxInFlightPerScope: 10,
});
const fetchJwks = guardedJwksFetch(fetcher, 'space');

describe('the SSRF-guarded JWKS fetch', () => {
  it('answers as fetch would: the document checked, with the lifetime the issuer gave', async () => {
    const url = await endpoint((response) =>
      response
        .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' })
        .end(JSON.stringify({ keys: [KEY] })),
    );
    const answer = await fetchJwks(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('max-age=60');
    expect(await answer.json()).toEqual({ keys: [KEY] });
  });

  it('refuses the metadata service and the own port before connecting', async () => {
    await expect(fetchJwks('http://169.254.169.254/jwks')).rejects.toThrow(/jwks_uri: refused/);
    await expect(fetchJwks('http://127.0.0.1:8080/jwks')).rejects.toThrow(/own port/);
  });

  it('refuses a private key, a redirect and a document past 64 KiB', async () => {
    const privateKey = await endpoint((response) =>
      response.end(JSON.stringify({ keys: [{ ...KEY, d: 'secret' }] })),
    );
    await expect(fetchJwks(privateKey)).rejects.toThrow(/not a JWKS document/);
    const redirect = await endpoint((response) =>
      response.writeHead(302, { location: 'http://169.254.169.254/' }).end(),
    );
    await expect(fetchJwks(redirect)).rejects.toThrow(/answered 302/);
    const large = await endpoint((response) =>
      response.end(JSON.stringify({ keys: [{ ...KEY, pad: 'x'.repeat(70_000) }] })),
    );
    await expect(fetchJwks(large)).rejects.toThrow(/too large/);
  });
});
