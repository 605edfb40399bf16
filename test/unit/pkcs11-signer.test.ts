import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  signAccessTokenOffThread,
  type PrivateTokenClaims,
} from '../../src/crypto/access-tokens.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { UnavailableError } from '../../src/errors/errors.js';
import { openPkcs11Signer, type Pkcs11Signer } from '../../src/crypto/pkcs11/pkcs11-signer.js';
import { pkcs11SettingsOf, type Pkcs11Settings } from '../../src/crypto/pkcs11/settings.js';
import { isHsmKeyReference } from '../../src/crypto/token-signer.js';
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
          const signed = await signAccessTokenOffThread(
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
      await Promise.all(inputs.map((input) => signer.sign(kid, input)));
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
          Array.from({ length: 50 }, (_, i) => signer.sign(kid, Buffer.from(`${i}`))),
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
});
