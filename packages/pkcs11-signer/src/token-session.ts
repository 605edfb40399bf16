import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { JWK } from 'jose';
import type * as Pkcs11Js from 'pkcs11js';
import { Pkcs11Failure } from './errors.js';
import { HandleCache } from './handle-cache.js';
import type { Pkcs11Settings } from './settings.js';

// PKCS#11 3.0 values pkcs11js 2.1.7 does not name (v3.0 §2.3.6, §6.3.x).
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;
// The curve as its OID, 1.3.101.112 (RFC 8410), DER-encoded: how PKCS#11 3.0 names Ed25519.
const ED25519_PARAMS = Buffer.from('06032b6570', 'hex');
// Set by the first session (see loadPkcs11Binding); the constants below are read from it.
let pkcs11js: typeof Pkcs11Js;

/** The JWS algorithm of the keys the token makes: Ed25519 (RFC 8037). */
export const ED25519_ALG = 'EdDSA';

/**
 * The PKCS#11 binding, loaded when a signer first needs it: pkcs11js is an optional dependency
 * (a native addon built at install time), so `npm install` succeeds without a C++ toolchain and
 * only SIGNING_BACKEND=pkcs11 asks for it.
 */
export function loadPkcs11Binding(specifier = 'pkcs11js'): typeof Pkcs11Js {
  try {
    return createRequire(import.meta.url)(specifier) as typeof Pkcs11Js;
  } catch (error) {
    throw new Pkcs11Failure(
      'SIGNING_BACKEND',
      `SIGNING_BACKEND=pkcs11 needs the optional package pkcs11js, which is not installed (${pkcs11Reason(error)}): install a C++ toolchain (Debian: apt-get install -y g++ make python3) and run npm install pkcs11js`,
    );
  }
}

/** The CKR_ name of a pkcs11js error, else its message. */
export function pkcs11Reason(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/**
 * One logged-in session on the token named PKCS11_TOKEN_LABEL, used by one thread at a time (the
 * signer's worker). Keys are found by CKA_ID = kid and their handles kept, at most `maxKeys`.
 * Synchronous: the worker's thread is the one that waits on the HSM.
 */
export class TokenSession {
  readonly #module: Pkcs11Js.PKCS11;
  readonly #session: Buffer;
  readonly #handles: HandleCache;

  constructor(readonly settings: Pkcs11Settings) {
    pkcs11js = loadPkcs11Binding(settings.binding);
    this.#module = new pkcs11js.PKCS11();
    this.#handles = new HandleCache(settings.maxKeys);
    try {
      this.#module.load(settings.module);
    } catch (error) {
      throw new Pkcs11Failure(
        'PKCS11_MODULE',
        `${settings.module} could not be loaded (${pkcs11Reason(error)})`,
      );
    }
    try {
      this.#module.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
    } catch (error) {
      // Another signer of this process initialised the library already: shared, and fine.
      if (pkcs11Reason(error) !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') throw error;
    }
    const slot = this.#slotOf(settings.tokenLabel);
    this.#session = this.#module.C_OpenSession(
      slot,
      pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION,
    );
    try {
      this.#module.C_Login(this.#session, pkcs11js.CKU_USER, settings.pin);
    } catch (error) {
      const reason = pkcs11Reason(error);
      if (reason !== 'CKR_USER_ALREADY_LOGGED_IN') {
        this.#module.C_CloseSession(this.#session);
        throw new Pkcs11Failure('PKCS11_PIN', `the token refused the login (${reason})`);
      }
    }
  }

  #slotOf(label: string): Buffer {
    const labels: string[] = [];
    for (const slot of this.#module.C_GetSlotList(true)) {
      const tokenLabel = this.#module.C_GetTokenInfo(slot).label.trimEnd();
      if (tokenLabel === label) return slot;
      labels.push(JSON.stringify(tokenLabel));
    }
    throw new Pkcs11Failure(
      'PKCS11_TOKEN_LABEL',
      `no token labelled ${JSON.stringify(label)} in ${this.settings.module} (tokens present: ${labels.join(', ') || 'none'})`,
    );
  }

  /**
   * A new Ed25519 key pair made inside the token: the private half sensitive and never
   * extractable, both halves labelled with the kid (the thumbprint of the public half, known only
   * once the token made it).
   */
  generate(): { kid: string; publicJwk: JWK } {
    const keys = this.#module.C_GenerateKeyPair(
      this.#session,
      { mechanism: CKM_EC_EDWARDS_KEY_PAIR_GEN },
      [
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_VERIFY, value: true },
        { type: pkcs11js.CKA_EC_PARAMS, value: ED25519_PARAMS },
      ],
      [
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_PRIVATE, value: true },
        { type: pkcs11js.CKA_SIGN, value: true },
        { type: pkcs11js.CKA_SENSITIVE, value: true },
        { type: pkcs11js.CKA_EXTRACTABLE, value: false },
      ],
    );
    const x = this.#publicPoint(keys.publicKey);
    const kid = thumbprint(x);
    const names = [
      { type: pkcs11js.CKA_ID, value: Buffer.from(kid, 'utf8') },
      { type: pkcs11js.CKA_LABEL, value: kid },
    ];
    this.#module.C_SetAttributeValue(this.#session, keys.publicKey, names);
    this.#module.C_SetAttributeValue(this.#session, keys.privateKey, names);
    this.#handles.set(kid, keys.privateKey);
    return { kid, publicJwk: publicJwkOf(kid, x) };
  }

  /** The signature of `input` by key `kid` (CKM_EDDSA: pure Ed25519, as RFC 8037's EdDSA). */
  sign(kid: string, input: Uint8Array): Buffer {
    const handle = this.#handleOf(kid);
    try {
      return this.#signWith(handle, input);
    } catch (error) {
      // A handle can go stale (the key deleted and made again): look it up once more.
      if (pkcs11Reason(error) !== 'CKR_KEY_HANDLE_INVALID') throw error;
      this.#handles.delete(kid);
      return this.#signWith(this.#handleOf(kid), input);
    }
  }

  #signWith(handle: Buffer, input: Uint8Array): Buffer {
    this.#module.C_SignInit(this.#session, { mechanism: CKM_EDDSA }, handle);
    return this.#module.C_Sign(this.#session, Buffer.from(input), Buffer.alloc(64));
  }

  /** The public JWK of key `kid`, read from the token; undefined when it holds none. */
  publicJwk(kid: string): JWK | undefined {
    const [handle] = this.#find(pkcs11js.CKO_PUBLIC_KEY, kid);
    return handle ? publicJwkOf(kid, this.#publicPoint(handle)) : undefined;
  }

  /**
   * Destroys every object of key `kid` (its two halves) and forgets its handle; returns how many
   * there were. Only for a key no ring records: see TokenSigner.discard.
   */
  destroy(kid: string): number {
    this.#handles.delete(kid);
    const objects = [
      ...this.#find(pkcs11js.CKO_PRIVATE_KEY, kid),
      ...this.#find(pkcs11js.CKO_PUBLIC_KEY, kid),
    ];
    for (const object of objects) this.#module.C_DestroyObject(this.#session, object);
    return objects.length;
  }

  #handleOf(kid: string): Buffer {
    const held = this.#handles.get(kid);
    if (held) return held;
    const found = this.#find(pkcs11js.CKO_PRIVATE_KEY, kid);
    if (found.length !== 1) {
      throw new Error(
        found.length === 0
          ? `the token holds no private key with CKA_ID ${kid}`
          : `the token holds several private keys with CKA_ID ${kid}`,
      );
    }
    this.#handles.set(kid, found[0]!);
    return found[0]!;
  }

  #find(objectClass: number, kid: string): Buffer[] {
    this.#module.C_FindObjectsInit(this.#session, [
      { type: pkcs11js.CKA_CLASS, value: objectClass },
      { type: pkcs11js.CKA_ID, value: Buffer.from(kid, 'utf8') },
    ]);
    try {
      return this.#module.C_FindObjects(this.#session, 2);
    } finally {
      this.#module.C_FindObjectsFinal(this.#session);
    }
  }

  /** The 32 bytes of an Ed25519 public key: CKA_EC_POINT, DER OCTET STRING or (some HSMs) raw. */
  #publicPoint(handle: Buffer): Buffer {
    const [point] = this.#module.C_GetAttributeValue(this.#session, handle, [
      { type: pkcs11js.CKA_EC_POINT },
    ]);
    const value = point?.value as Buffer;
    if (value.length === 34 && value[0] === 0x04 && value[1] === 0x20) return value.subarray(2);
    if (value.length === 32) return value;
    throw new Error('the token returned an Ed25519 public key of an unknown encoding');
  }

  /**
   * Logs out of this token and ends the session. The library stays initialised: it is one per
   * process, and C_Finalize would end the sessions of any other signer the process holds.
   */
  close(): void {
    for (const step of [
      () => this.#module.C_Logout(this.#session),
      () => this.#module.C_CloseSession(this.#session),
    ]) {
      try {
        step();
      } catch {
        // Closing what is already closed: nothing to do.
      }
    }
  }
}

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 of {"crv","kty","x"} in that order. */
function thumbprint(x: Buffer): string {
  const canonical = `{"crv":"Ed25519","kty":"OKP","x":"${x.toString('base64url')}"}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

function publicJwkOf(kid: string, x: Buffer): JWK {
  return {
    kty: 'OKP',
    crv: 'Ed25519',
    x: x.toString('base64url'),
    kid,
    alg: ED25519_ALG,
    use: 'sig',
  };
}
