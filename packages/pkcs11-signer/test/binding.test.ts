import { describe, expect, it } from 'vitest';
import { Pkcs11Failure } from '../src/errors.js';
import { loadPkcs11Binding } from '../src/token-session.js';

// Issue 50: pkcs11js is optional (a native addon that needs a C++ toolchain to install), so a
// machine without one still installs; SIGNING_BACKEND=pkcs11 then says in one line what to do.
describe('the PKCS#11 binding, when it is not installed', () => {
  it('fails naming the setting and what to install, in one line', () => {
    let failure: unknown;
    try {
      loadPkcs11Binding('pkcs11js-not-installed-here');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(Pkcs11Failure);
    const { setting, message } = failure as Pkcs11Failure;
    expect(setting).toBe('SIGNING_BACKEND');
    expect(message).toMatch(/optional package pkcs11js/);
    expect(message).toMatch(/npm install pkcs11js/);
    expect(message.includes('\n')).toBe(false);
  });
});
