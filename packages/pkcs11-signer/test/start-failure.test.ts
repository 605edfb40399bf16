import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Pkcs11Failure, Pkcs11Unavailable, type Pkcs11Errors } from '../src/errors.js';
import { openPkcs11Signer } from '../src/pkcs11-signer.js';
import type { Pkcs11QueueFactory } from '../src/signer.js';

// With no HSM: a library that is not there fails the login in the signer's thread, which proves
// the thread starts from this package (under tsx here, compiled in dist/) and reports back.
const installed = (() => {
  try {
    createRequire(import.meta.url)('pkcs11js');
    return true;
  } catch {
    return false;
  }
})();
// Without the binding, the thread fails on it first; either way the setting is named.
const SETTING = installed ? 'PKCS11_MODULE' : 'SIGNING_BACKEND';

/** A plain first-in first-out queue: the signer asks for no more than this. */
const fifo: Pkcs11QueueFactory = <Item>() => {
  const items: Item[] = [];
  return {
    offer: (_spaceId: string, item: Item) => items.push(item) > 0,
    take: (max: number) => items.splice(0, max),
    size: () => items.length,
  };
};

const SETTINGS = {
  module: '/nonexistent/libpkcs11-for-a-test.so',
  tokenLabel: 'none',
  pin: '1234',
  maxKeys: 1,
};

describe('the signer, started against a library that is not there', () => {
  it('fails with its own error naming the setting', async () => {
    const opened = openPkcs11Signer(SETTINGS, { createQueue: fifo, keySpace: 'k' });
    const failure = await opened.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Pkcs11Failure);
    expect((failure as Pkcs11Failure).setting).toBe(SETTING);
    expect((failure as Error).message).not.toContain('1234');
  });

  it("throws the user's errors instead when given", async () => {
    class SettingProblem extends Error {}
    const errors: Pkcs11Errors = {
      unavailable: (message) => new Pkcs11Unavailable(message),
      setting: (setting, message) => new SettingProblem(`${setting}: ${message}`),
    };
    const opened = openPkcs11Signer(SETTINGS, { createQueue: fifo, keySpace: 'k', errors });
    await expect(opened).rejects.toBeInstanceOf(SettingProblem);
    await expect(opened).rejects.toThrow(new RegExp(`^${SETTING}: `));
  });
});
