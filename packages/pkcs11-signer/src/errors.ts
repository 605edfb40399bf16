/** A PKCS#11 failure with its return value's name (CKR_PIN_INCORRECT...), never a PIN. */
export class Pkcs11Failure extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
    this.name = 'Pkcs11Failure';
  }
}

/** The signer cannot sign now: closed, its queue full, the token stalled or logging in again. */
export class Pkcs11Unavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'Pkcs11Unavailable';
  }
}

/**
 * The errors the signer throws, so that a service throws its own (an unavailable error its edge
 * answers 503, a configuration error that stops it at start) without wrapping every call.
 */
export interface Pkcs11Errors {
  /** The signer cannot sign now; `cause` when something underneath failed. */
  unavailable(message: string, cause?: unknown): Error;
  /** Login failed at start because of `setting` (the library, the token label, the PIN). */
  setting(setting: string, message: string): Error;
}

/** This package's own errors, for a user that gives none. */
export const PKCS11_ERRORS: Pkcs11Errors = {
  unavailable: (message, cause) =>
    new Pkcs11Unavailable(message, cause === undefined ? undefined : { cause }),
  setting: (setting, message) => new Pkcs11Failure(setting, message),
};
