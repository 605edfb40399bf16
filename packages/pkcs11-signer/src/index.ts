// The front door: the signer, its options and errors. The thread, its protocol and the token
// session stay inside (a TokenSession's calls block the thread that makes them).
export { PKCS11_ERRORS, Pkcs11Failure, Pkcs11Unavailable, type Pkcs11Errors } from './errors.js';
export { openPkcs11Signer } from './pkcs11-signer.js';
// The settings' schema stays inside: its `binding` is the HSM tests' hook, not an option.
export type { Pkcs11Settings } from './settings.js';
export type {
  Pkcs11GeneratedKey,
  Pkcs11Queue,
  Pkcs11QueueFactory,
  Pkcs11Signer,
  Pkcs11SignerHealth,
  Pkcs11SignerOptions,
  Pkcs11SignerStats,
} from './signer.js';
