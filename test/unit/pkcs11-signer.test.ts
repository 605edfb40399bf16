import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { createLocalJWKSet, jwtVerify } from 'jose';
import pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessTokenWith, type PrivateTokenClaims } from '../../src/crypto/access-tokens.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { UnavailableError } from '../../src/errors/errors.js';
import {
  openPkcs11Signer,
  pkcs11SettingsOf,
  type Pkcs11Settings,
  type Pkcs11Signer,
} from '../../src/crypto/pkcs11-signer.js';
import { isHsmKeyReference, signerReadiness } from '../../src/crypto/token-signer.js';
import { readinessWith } from '../../src/db/readiness.js';
import { createApp } from '../../src/http/app.js';
import { mountRoutes } from '../../src/http/route.js';
import { healthRoutes } from '../../src/http/routes/health.js';
import { createTestToken, SOFTHSM_MODULE, type TestToken } from '../support/softhsm.js';

let token: TestToken;
let settings: Pkcs11Settings;
beforeAll(async () => {
  token = await createTestToken();
  settings = { module: SOFTHSM_MODULE, tokenLabel: token.label, pin: token.pin, maxKeys: 2 };
});
afterAll(() => token?.remove());

const now = Math.floor(Date.now() / 1000);
const claims = (jti: string): PrivateTokenClaims => ({
  iss: 'https://issuer.test',
  sub: 'ci_1',
  aud: 'storefront.test',
  exp: now + 60,
  iat: now,
  jti,
  client_id: 'ci_1',
  space_id: 's',
  token_kind: 'private',
});

/** Opens the signer, runs `use`, closes it: one PKCS#11 user of the library at a time. */
async function withSigner<T>(
  use: (signer: Pkcs11Signer) => Promise<T>,
  options?: Parameters<typeof openPkcs11Signer>[1],
): Promise<T> {
  const signer = await openPkcs11Signer(settings, options);
  try {
    return await use(signer);
  } finally {
    await signer.close();
  }
}

describe('PKCS#11 signer (SoftHSM2)', () => {
  let kids: string[] = [];

  it('makes keys inside the token whose tokens verify against the published JWK (jose)', async () => {
    const jwks = await withSigner(async (signer) => {
      const keys = [await signer.generate(), await signer.generate(), await signer.generate()];
      kids = keys.map((key) => key.kid);
      for (const key of keys) {
        // The database keeps where the key lives, never key material.
        expect(key.stored).toEqual({ hsm: 'pkcs11', token: token.label });
        expect(isHsmKeyReference(key.stored)).toBe(true);
        expect(key.publicJwk).not.toHaveProperty('d');
        expect(await signer.publicJwk(key.kid)).toEqual(key.publicJwk);
      }
      // Three keys, two handles held: each signs still, found again by its CKA_ID.
      const tokens = [];
      for (const round of [0, 1]) {
        for (const key of keys) {
          const signed = await signAccessTokenWith(
            { kid: key.kid, signer },
            claims(`${key.kid}-${round}`),
          );
          tokens.push({ signed, kid: key.kid });
        }
      }
      return { keys: keys.map((key) => key.publicJwk), tokens };
    });
    const keySet = createLocalJWKSet({ keys: jwks.keys });
    for (const { signed, kid } of jwks.tokens) {
      const verified = await jwtVerify(signed, keySet, {
        issuer: 'https://issuer.test',
        audience: 'storefront.test',
        typ: 'at+jwt',
        algorithms: ['EdDSA'],
      });
      expect(verified.protectedHeader.kid).toBe(kid);
    }
  });

  it('keeps the private key unreadable: CKA_VALUE refused, never extractable', () => {
    expect(kids).toHaveLength(3);
    const module = new pkcs11js.PKCS11();
    module.load(SOFTHSM_MODULE);
    try {
      module.C_Initialize();
    } catch (error) {
      // The signers left the library initialised (one per process), as they should.
      expect(String(error)).toMatch(/CKR_CRYPTOKI_ALREADY_INITIALIZED/);
    }
    try {
      const slot = module
        .C_GetSlotList(true)
        .find((candidate) => module.C_GetTokenInfo(candidate).label.trimEnd() === token.label)!;
      const session = module.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION);
      module.C_Login(session, pkcs11js.CKU_USER, token.pin);
      module.C_FindObjectsInit(session, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
        { type: pkcs11js.CKA_ID, value: Buffer.from(kids[0]!) },
      ]);
      const [privateKey] = module.C_FindObjects(session, 2);
      module.C_FindObjectsFinal(session);
      expect(privateKey).toBeDefined();
      expect(() =>
        module.C_GetAttributeValue(session, privateKey!, [{ type: pkcs11js.CKA_VALUE }]),
      ).toThrow(/CKR_ATTRIBUTE_SENSITIVE/);
      const flags = module
        .C_GetAttributeValue(session, privateKey!, [
          { type: pkcs11js.CKA_EXTRACTABLE },
          { type: pkcs11js.CKA_SENSITIVE },
          { type: pkcs11js.CKA_NEVER_EXTRACTABLE },
          { type: pkcs11js.CKA_ALWAYS_SENSITIVE },
        ])
        .map((attribute) => (attribute.value as Buffer)[0]);
      expect(flags).toEqual([0, 1, 1, 1]);
    } finally {
      module.C_Finalize();
    }
  });

  it('signs on its own thread, batched: the event loop keeps turning while 600 signatures are in flight', async () => {
    const { ticksWhileSigning, stats } = await withSigner(async (signer) => {
      const { kid } = await signer.generate();
      let ticks = 0;
      let signing = true;
      const tick = () => {
        ticks++;
        if (signing) setImmediate(tick);
      };
      setImmediate(tick);
      const inputs = Array.from({ length: 600 }, (_, i) => Buffer.from(`input-${i}`));
      await Promise.all(inputs.map((input) => signer.sign(kid, input, 's')));
      signing = false;
      return { ticksWhileSigning: ticks, stats: signer.stats() };
    });
    // Signed in this thread, 600 signatures would hold the loop until the last: one turn at most.
    expect(ticksWhileSigning).toBeGreaterThan(100);
    // Asked in one turn, they went out as a few batches, not 600 messages.
    expect(stats.requests).toBe(601);
    expect(stats.batches).toBeLessThanOrEqual(10);
    expect(stats.largestBatch).toBeGreaterThan(1);
  });

  it('refuses work past its queue bound instead of holding it without limit', async () => {
    const refused = await withSigner(
      async (signer) => {
        const kid = kids[0]!;
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, (_, i) => signer.sign(kid, Buffer.from(`${i}`), `space-${i}`)),
        );
        return results.filter((result) => result.status === 'rejected');
      },
      { maxQueued: 20 },
    );
    expect(refused).toHaveLength(30);
    for (const result of refused) {
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(UnavailableError);
    }
  });

  it('stops at start with a ConfigError naming the setting: wrong PIN, missing token, missing library', async () => {
    const failure = (changed: Partial<Pkcs11Settings>) =>
      openPkcs11Signer({ ...settings, ...changed }).then(
        () => undefined,
        (error: unknown) => error as ConfigError,
      );
    const wrongPin = await failure({ pin: 'not-the-pin' });
    expect(wrongPin).toBeInstanceOf(ConfigError);
    expect(wrongPin?.message).toMatch(/PKCS11_PIN: .*CKR_PIN_INCORRECT/);
    expect(wrongPin?.message).not.toContain('not-the-pin');
    const noToken = await failure({ tokenLabel: 'no-such-token' });
    expect(noToken?.message).toMatch(/PKCS11_TOKEN_LABEL: no token labelled "no-such-token"/);
    const noModule = await failure({ module: '/nonexistent/libpkcs11.so' });
    expect(noModule?.message).toMatch(
      /PKCS11_MODULE: \/nonexistent\/libpkcs11.so could not be loaded/,
    );
  });

  it('reads the PIN from a file (file:<path>) and requires the token settings', async () => {
    const pinFile = path.join(path.dirname(token.conf), 'pin');
    await writeFile(pinFile, `${token.pin}\n`, { mode: 0o600 });
    const config = loadConfig({
      SIGNING_BACKEND: 'pkcs11',
      PKCS11_TOKEN_LABEL: token.label,
      PKCS11_PIN: `file:${pinFile}`,
    });
    const fromFile = await pkcs11SettingsOf(config);
    expect(fromFile).toMatchObject({ pin: token.pin, module: SOFTHSM_MODULE });
    await withSigner(async (signer) => expect(await signer.publicJwk(kids[0]!)).toBeDefined());
    await expect(pkcs11SettingsOf(loadConfig({ SIGNING_BACKEND: 'pkcs11' }))).rejects.toThrow(
      /PKCS11_TOKEN_LABEL: required with SIGNING_BACKEND=pkcs11/,
    );
  });

  it('one space at its share of the queue cannot starve another space of signatures', async () => {
    const { flood, other } = await withSigner(
      async (signer) => {
        const kid = kids[0]!;
        // Asked in one turn: all wait for the first batch together.
        const flood = Array.from({ length: 50 }, (_, i) =>
          signer.sign(kid, Buffer.from(`a-${i}`), 'space-flood'),
        );
        const other = signer.sign(kid, Buffer.from('b'), 'space-other').then(
          (signature) => signature.length,
          (error: unknown) => error,
        );
        return { flood: await Promise.allSettled(flood), other: await other };
      },
      { maxQueued: 20, maxQueuedPerSpace: 5 },
    );
    expect(other).toBe(64);
    expect(flood.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    for (const result of flood.filter((result) => result.status === 'rejected')) {
      expect(result.reason).toBeInstanceOf(UnavailableError);
    }
  });
});

// Issue 51, item 4: a batch that timed out kept its thread and its in-flight slot, so one stalled
// call stopped every signature of the process until a restart.
describe('PKCS#11 signer: a stalled HSM call (SoftHSM2, one call made to block)', () => {
  const STALLING_BINDING = path.resolve('test/support/stalling-pkcs11js.cjs');

  it('replaces the wedged thread, says so to readiness meanwhile, and another space signs again without a restart', async () => {
    const stallFile = path.join(path.dirname(token.conf), 'stall');
    process.env.PKCS11_STALL_FILE = stallFile;
    // Long enough for a thread to start and log in under vitest on a loaded machine.
    const timeoutMs = 2000;
    const signer = await openPkcs11Signer(
      { ...settings, binding: STALLING_BINDING },
      { timeoutMs },
    );
    // The API's /readyz over a database that answers, and this signer.
    const app = createApp({
      logger: pino({ level: 'silent' }),
      trustedProxyHops: 0,
      routers: [
        mountRoutes(
          healthRoutes(
            readinessWith({ check: async () => ({ ready: true }) }, signerReadiness(signer)),
            pino({ level: 'silent' }),
          ),
        ),
      ],
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const readyz = async () => {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = (await response.json()) as { reason?: string };
      return { status: response.status, ...(body.reason ? { reason: body.reason } : {}) };
    };
    try {
      const { kid } = await signer.generate();
      await signer.sign(kid, Buffer.from('warm'), 'space-a');
      expect(signer.health()).toEqual({ ok: true });
      await writeFile(stallFile, 'C_Sign 30000');
      const stalledAt = Date.now();
      const stalled = signer.sign(kid, Buffer.from('stalls'), 'space-a').then(
        () => undefined,
        (error: unknown) => error,
      );
      // Another space's tokens, one after another, for three deadlines; each answer is timed.
      const window = 3 * timeoutMs;
      const answers: Array<{ readonly at: number; readonly took: number; readonly ok: boolean }> =
        [];
      const issuing = (async () => {
        for (let left = window; left > 0; left = window - (Date.now() - stalledAt)) {
          const asked = Date.now();
          const signed = signAccessTokenWith(
            { kid, signer },
            { ...claims(`b-${answers.length}`), space_id: 'space-b' },
          ).then(
            () => true,
            () => false,
          );
          const ok = await Promise.race([signed, sleep(left).then(() => undefined)]);
          if (ok === undefined) break; // unanswered at the end of the window
          answers.push({ at: Date.now() - stalledAt, took: Date.now() - asked, ok });
        }
      })();
      await sleep(0.7 * timeoutMs);
      // Wedged: a batch out for more than half the deadline. /readyz says so.
      expect(signer.health()).toMatchObject({ ok: false });
      expect(await readyz()).toEqual({ status: 503, reason: 'signer_unavailable' });
      expect(await stalled).toBeInstanceOf(UnavailableError);
      await issuing;
      const firstSigned = answers.find((answer) => answer.ok);
      const signedAfter = answers.filter((answer) => answer.ok && answer.at > timeoutMs);
      console.log(
        `stalled call: another space's first token ${firstSigned ? `${firstSigned.at} ms` : 'never'} after the stall; ` +
          `${signedAfter.length} tokens in the ${window - timeoutMs} ms after the deadline ` +
          `(${Math.round((signedAfter.length * 1000) / (window - timeoutMs))}/s); ` +
          `slowest answer ${Math.max(0, ...answers.map((answer) => answer.took))} ms`,
      );
      expect(firstSigned?.at).toBeLessThan(2.5 * timeoutMs);
      // Queued behind the stall, a request waits its own deadline at most, never the stall's 30 s.
      for (const answer of answers) expect(answer.took).toBeLessThan(2.5 * timeoutMs);
      expect(signer.health()).toEqual({ ok: true });
      expect(await readyz()).toEqual({ status: 200 });
      expect(signer.stats().replaced).toBe(1);
    } finally {
      delete process.env.PKCS11_STALL_FILE;
      server.close();
      await signer.close();
    }
  });
});
