// pkcs11js as the signer's thread loads it (PKCS#11 settings' `binding`), with one call that can
// stall as a wedged HSM does: the thread blocks inside the call. The real library and token sign;
// only the stall is made up. Write `<call> <ms>` (e.g. `C_Sign 30000`) to the file named by
// PKCS11_STALL_FILE: the next such call, in any thread, claims the file and blocks that long.
// `<call> <ms> all`: every such call blocks that long while the file is there (a long stall), in
// native code as a real HSM's call does, where a thread's terminate() cannot end it.
'use strict';
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const { threadId } = require('node:worker_threads');
const real = require('pkcs11js');

function stallIfAsked(call) {
  const file = process.env.PKCS11_STALL_FILE;
  if (!file) return;
  const claimed = `${file}.${process.pid}.${threadId}`;
  try {
    const [asked, ms, every] = fs.readFileSync(file, 'utf8').trim().split(' ');
    if (asked !== call) return;
    if (every !== 'all') {
      // Renamed first: two threads never both take one stall.
      fs.renameSync(file, claimed);
      fs.unlinkSync(claimed);
    }
    if (every === 'all') spawnSync('sleep', [String(Number(ms) / 1000)]);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ms));
  } catch {
    // No stall asked, or another thread took it.
  }
}

class PKCS11 extends real.PKCS11 {
  constructor(...args) {
    super(...args);
    // Wrapped on the instance, over pkcs11js's own wrappers (it sets them there too).
    for (const call of ['C_Sign', 'C_Login']) {
      const original = this[call];
      this[call] = function (...callArgs) {
        stallIfAsked(call);
        return original.apply(this, callArgs);
      };
    }
  }
}

module.exports = { ...real, PKCS11 };
