/**
 * `npm run bench:verify`: CPU per verification with token-authority/verify on a warm cache (JWKS
 * and revocation list fetched once): a bearer public token, and a DPoP-bound one with a fresh
 * proof each time (signing the proofs is the client's cost and is done before the clock starts).
 * Target (issue 22): under 50 µs for a bearer token on a warm cache. Rows: the same token again
 * (the memo of verified tokens answers), a new token each time (Ed25519 checked), and a
 * DPoP-bound token with its proof (jose checks the proof's ES256 signature).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { parseCommandLine } from '#settings/command-line.js';
import { signAccessToken, type AccessTokenClaims } from '../src/crypto/access-tokens.js';
import { accessTokenHash } from '../src/crypto/dpop.js';
import { createVerifier } from '../src/verify/index.js';

const { values } = parseCommandLine(`Usage: npm run bench:verify [-- --count=20000]`, {
  count: { type: 'string', default: '20000' },
});
const count = Number(values.count);

// A stand-in issuer: its JWKS and an (empty) revocation list, served locally.
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const kid = 'bench-key';
const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA', use: 'sig' }] };
const server = createServer((request, response) => {
  response.setHeader('content-type', 'application/json');
  if (request.url?.startsWith('/.well-known/jwks.json')) return response.end(JSON.stringify(jwks));
  response.setHeader('etag', '"empty"');
  if (request.headers['if-none-match'] === '"empty"') {
    response.statusCode = 304;
    return response.end();
  }
  response.end(
    JSON.stringify({
      space_id: 's',
      generated_at: new Date().toISOString(),
      clients: [],
      tokens: [],
    }),
  );
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const now = Math.floor(Date.now() / 1000);
const claims = (cnf?: { jkt: string }): AccessTokenClaims => ({
  iss: issuer,
  sub: 'customer-1',
  aud: 'storefront',
  exp: now + 3600,
  iat: now,
  jti: randomUUID(),
  client_id: 'ci_bench',
  space_id: 's',
  token_kind: 'public',
  customer_id: 'customer-1',
  segment_id: 'vip',
  parent_jti: randomUUID(),
  act: { sub: 'ci_bench' },
  ...(cnf ? { cnf } : {}),
});
const key = { kid, privateKey, publicKey } as Parameters<typeof signAccessToken>[0];
const bearer = signAccessToken(key, claims());
const browser = await generateKeyPair('ES256');
const jwk = await exportJWK(browser.publicKey);
const bound = signAccessToken(key, claims({ jkt: await calculateJwkThumbprint(jwk) }));

const verifier = createVerifier({ issuer, audience: 'storefront', revocationRefreshSeconds: 3600 });
const request = (authorization: string, dpop?: string) => ({
  method: 'GET',
  url: 'https://storefront.example/graphql',
  header: (name: string) =>
    name === 'authorization' ? authorization : name === 'dpop' ? dpop : undefined,
});

async function measure(name: string, make: (i: number) => ReturnType<typeof request>) {
  for (let i = 0; i < 500; i += 1) await verifier.verify(make(i)); // warm: JWKS, list, JIT
  const requests = Array.from({ length: count }, (_, i) => make(i + 500));
  const before = process.cpuUsage();
  for (const each of requests) await verifier.verify(each);
  const used = process.cpuUsage(before);
  const micros = (used.user + used.system) / count;
  console.log(`| ${name} | ${count.toLocaleString('en-US')} | ${micros.toFixed(1)} |`);
  return micros;
}

console.log('| token | verifications | CPU µs each |\n| --- | ---: | ---: |');
const bearerMicros = await measure('bearer public token, seen before (memo)', () =>
  request(`Bearer ${bearer}`),
);
const distinct = Array.from({ length: count + 500 }, () => signAccessToken(key, claims()));
await measure('bearer public token, each one new (signature checked)', (i) =>
  request(`Bearer ${distinct[i]}`),
);
const proofs = await Promise.all(
  Array.from({ length: count + 500 }, () =>
    new SignJWT({
      htm: 'GET',
      htu: 'https://storefront.example/graphql',
      iat: now,
      jti: randomUUID(),
      ath: accessTokenHash(bound),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(browser.privateKey),
  ),
);
await measure('DPoP-bound public token + proof', (i) => request(`DPoP ${bound}`, proofs[i]));
console.log(`\nbearer target < 50 µs: ${bearerMicros < 50 ? 'met' : 'not met'}`);
server.close();
