import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/errors/errors.js';
import { openPkcs11Signer, type Pkcs11Settings } from '../../src/crypto/pkcs11-signer.js';
import { signerLiveness } from '../../src/crypto/token-signer.js';
import { createApp } from '../../src/http/app.js';
import { mountRoutes } from '../../src/http/route.js';
import { healthRoutes } from '../../src/http/routes/health.js';
import { createTestToken, SOFTHSM_MODULE, type TestToken } from '../support/softhsm.js';
import { waitUntil } from '../support/wait.js';

/**
 * A long HSM stall: every C_Sign blocks. A native call cannot be interrupted, so each deadline
 * used to leave one more thread inside the token (49 → 72 threads in 30 s); now at most
 * `maxStuckThreads` are, signing fails at once past them, /livez fails, and a stuck call's return
 * lets one new login probe the token and signing resume.
 */
const STALLING_BINDING = path.resolve('test/support/stalling-pkcs11js.cjs');
let token: TestToken;
let settings: Pkcs11Settings;
beforeAll(async () => {
  token = await createTestToken('token-authority-stuck');
  settings = {
    module: SOFTHSM_MODULE,
    tokenLabel: token.label,
    pin: token.pin,
    maxKeys: 2,
    binding: STALLING_BINDING,
  };
});
afterAll(() => token?.remove());

describe('PKCS#11 signer: a long stall (every C_Sign blocks)', () => {
  it('holds at most maxStuckThreads threads, fails fast past them with /livez failing, and recovers when a stuck call returns', async () => {
    const stallFile = path.join(path.dirname(token.conf), 'stall');
    process.env.PKCS11_STALL_FILE = stallFile;
    // Long enough for a thread to log in under vitest on a loaded machine.
    const signer = await openPkcs11Signer(settings, { timeoutMs: 5000, maxStuckThreads: 2 });
    const app = createApp({
      logger: pino({ level: 'silent' }),
      trustedProxyHops: 0,
      routers: [
        mountRoutes(
          healthRoutes(
            { check: async () => ({ ready: true }) },
            pino({ level: 'silent' }),
            () => [],
            signerLiveness(signer),
          ),
        ),
      ],
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const livez = async () => {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/livez`);
      return { code: response.status, body: (await response.json()) as unknown };
    };
    const sign = (kid: string) =>
      signer.sign(kid, Buffer.from('input'), 'space-a').then(
        () => 'signed',
        (error: unknown) => error,
      );
    try {
      const { kid } = await signer.generate();
      expect(await sign(kid)).toBe('signed');
      // Every C_Sign blocks until the file is gone, and 15 s after that at most.
      await writeFile(stallFile, 'C_Sign 15000 all');
      // Signing keeps being asked through several deadlines, as an issuing API would.
      const refusals: unknown[] = [];
      await waitUntil(
        async () => (refusals.push(await sign(kid)), signer.health()),
        (health) => !health.ok && health.reason === 'stuck',
        { timeoutMs: 60_000 },
      );
      expect(refusals.every((refusal) => refusal instanceof UnavailableError)).toBe(true);
      expect(signer.stats().stuckThreads).toBe(2);
      expect(await livez()).toEqual({
        code: 503,
        body: { status: 'unavailable', reason: 'signer_stuck' },
      });
      // Past the bound: refused at once, and no further thread is started however often asked.
      const replaced = signer.stats().replaced;
      for (let i = 0; i < 20; i++) {
        const refused = await sign(kid);
        expect(refused).toBeInstanceOf(UnavailableError);
        expect((refused as Error).message).toMatch(/2 signer threads are stuck/);
      }
      expect(signer.stats()).toMatchObject({ stuckThreads: 2, replaced });
      // The HSM answers again: the stuck calls return, one login probes it, signing resumes.
      await rm(stallFile);
      await waitUntil(
        () => sign(kid),
        (result) => result === 'signed',
        { timeoutMs: 60_000 },
      );
      expect(signer.health()).toEqual({ ok: true });
      expect(await livez()).toEqual({ code: 200, body: { status: 'ok' } });
      // The other stuck call returns in its time, and its thread ends.
      await waitUntil(
        () => signer.stats().stuckThreads,
        (n) => n === 0,
        { timeoutMs: 60_000 },
      );
    } finally {
      delete process.env.PKCS11_STALL_FILE;
      server.close();
      await signer.close();
    }
  }, 180_000);
});
