/**
 * `npx tsx bench/signing.ts [--count=10000 --in-flight=64 --spaces=1000]`: access-token
 * signatures a second through each signer, against the in-memory peer (today's issuance path:
 * `signAccessTokenWith` with a key object, on the event loop) in the same run, with
 * `--in-flight` signatures outstanding as concurrent requests would keep them. Per row: the
 * throughput, its ratio to the peer, and the event loop's busy share (what every other request of
 * the process waits behind) and busy time per signature. Needs SoftHSM2 (`apt-get install -y
 * softhsm2`); the token is a temporary one of its own.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseCommandLine } from '#settings/command-line.js';
import { signAccessTokenWith, type AccessTokenClaims } from '../src/crypto/access-tokens.js';
import type { SigningKey } from '../src/crypto/key-store.js';
import { openPkcs11Signer } from '../src/crypto/pkcs11-signer.js';
import { TokenSession } from '#pkcs11-signer/token-session.js';
import type { TokenSigner } from '../src/crypto/token-signer.js';
import { createTestToken, SOFTHSM_MODULE } from '../test/support/softhsm.js';

const { values } = parseCommandLine(
  'Usage: npx tsx bench/signing.ts [--count=10000 --in-flight=64 --spaces=1000]',
  {
    count: { type: 'string', default: '10000' },
    'in-flight': { type: 'string', default: '64' },
    spaces: { type: 'string', default: '1000' },
  },
);
const count = Number(values.count);
const inFlight = Number(values['in-flight']);
const spaces = Number(values.spaces);

const now = Math.floor(Date.now() / 1000);
const claims = (i: number): AccessTokenClaims => ({
  iss: 'https://issuer.bench',
  sub: `client-${i % 97}`,
  aud: 'storefront.bench',
  exp: now + 3600,
  iat: now,
  jti: `0193f3c2-7a10-7000-8000-${String(i).padStart(12, '0')}`,
  client_id: `client-${i % 97}`,
  space_id: `space-${i % spaces}`,
  token_kind: 'private',
});

interface Row {
  readonly name: string;
  readonly perSecond: number;
  readonly loopBusy: number;
  readonly loopMicrosPerSignature: number;
}

/** Signs `count` tokens, `inFlight` at a time, each with the key `keyOf(i)` picks. */
async function measure(name: string, keyOf: (i: number) => SigningKey): Promise<Row> {
  for (let i = 0; i < Math.min(500, count); i++) await signAccessTokenWith(keyOf(i), claims(i));
  let next = 0;
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await signAccessTokenWith(keyOf(i), claims(i));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const seconds = (performance.now() - started) / 1000;
  const used = performance.eventLoopUtilization(elu);
  return {
    name,
    perSecond: count / seconds,
    loopBusy: used.utilization,
    loopMicrosPerSignature: (used.active * 1000) / count,
  };
}

const localKeys: SigningKey[] = Array.from({ length: spaces }, (_, i) => ({
  kid: `local-${i}`,
  privateKey: generateKeyPairSync('ed25519').privateKey as KeyObject,
}));

const token = await createTestToken('bench-signing');
const settings = { module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin };
const rows: Row[] = [];
let lookupMs = 0;

/**
 * What a key not in the handle cache costs: C_FindObjects by CKA_ID among every key of the token
 * (SoftHSM2 compares each private object's attributes). Sequential lookups through a cache of one.
 */
async function missCost(kids: readonly string[]): Promise<number> {
  const signer = await openPkcs11Signer({ ...settings, maxKeys: 1 }, { timeoutMs: 120_000 });
  try {
    const started = performance.now();
    for (let i = 0; i < 40; i++) await signer.sign(kids[i % 2]!, Buffer.from('lookup'), 'bench');
    return (performance.now() - started) / 40;
  } finally {
    await signer.close();
  }
}
try {
  rows.push(await measure('in-memory peer: one local key', () => localKeys[0]!));
  rows.push(await measure(`local keys, ${spaces} spaces`, (i) => localKeys[i % spaces]!));

  // A signer with a generous handle cache makes the keys; then each row opens its own signer.
  const maker = await openPkcs11Signer(
    { ...settings, maxKeys: spaces + 10 },
    { timeoutMs: 120_000 },
  );
  const kids: string[] = [];
  for (let i = 0; i < spaces; i++) kids.push((await maker.generate()).kid);
  await maker.close();
  const hsm = async (name: string, maxKeys: number, pick: (i: number) => string) => {
    // A cold cache finds each key by CKA_ID first (missCost below): found once, before the clock.
    const signer = await openPkcs11Signer({ ...settings, maxKeys }, { timeoutMs: 120_000 });
    for (let i = 0; i < Math.min(spaces, maxKeys); i++)
      await signer.sign(pick(i), Buffer.from('w'), 'bench');
    try {
      rows.push(await measure(name, (i) => ({ kid: pick(i), signer })));
    } finally {
      await signer.close();
    }
  };
  await hsm('PKCS#11 signer: one key', 16, () => kids[0]!);
  await hsm(
    `PKCS#11 signer: ${spaces} spaces, cache holds all`,
    spaces + 10,
    (i) => kids[i % spaces]!,
  );
  lookupMs = await missCost(kids);

  // The same token signed on the event loop itself (no thread): what the worker spares requests.
  const session = new TokenSession({ ...settings, maxKeys: 16 });
  const inline: TokenSigner = {
    backend: 'pkcs11',
    sign: async (kid, input) => session.sign(kid, input),
    generate: () => Promise.reject(new Error('not here')),
    discard: () => Promise.reject(new Error('not here')),
    publicJwk: async () => undefined,
    health: () => ({ ok: true }),
    close: async () => session.close(),
  };
  rows.push(
    await measure('PKCS#11 on the event loop (no worker)', () => ({
      kid: kids[0]!,
      signer: inline,
    })),
  );
  await inline.close();
} finally {
  await token.remove();
}

const peer = rows[0]!.perSecond;
console.log(
  `${count} signatures a row, ${inFlight} in flight; ratio: signatures a second against the in-memory peer`,
);
console.log('| signer | signatures/s | ratio to peer | event loop busy | loop µs per signature |');
console.log('| --- | ---: | ---: | ---: | ---: |');
console.log(
  `A signature whose key is not in the handle cache (${spaces} keys in the token): ${lookupMs.toFixed(1)} ms`,
);
for (const row of rows) {
  console.log(
    `| ${row.name} | ${row.perSecond.toFixed(0)} | ${(row.perSecond / peer).toFixed(2)}× | ${(row.loopBusy * 100).toFixed(0)}% | ${row.loopMicrosPerSignature.toFixed(1)} |`,
  );
}
