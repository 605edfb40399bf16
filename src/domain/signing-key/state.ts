/** One access-token signing key as its events leave it (its key material lives elsewhere). */
export interface SigningKeyState {
  readonly kid: string;
  readonly alg: string;
  /** When it starts signing (ms since epoch); it is published in the JWKS before then. */
  readonly activatesAt: number;
  /** When it leaves the JWKS (ms since epoch), or null while no retirement is scheduled. */
  readonly retiredAt: number | null;
}

/** Every signing key ever generated, in the order they were generated. */
export type KeyRing = readonly SigningKeyState[];

/** Keys still published at `now`: not retired, or retiring later. */
export function publishedKeys(ring: KeyRing, now: number): KeyRing {
  return ring.filter((key) => key.retiredAt === null || key.retiredAt > now);
}

/** Keys that sign at `now`, or will once active: published and with no retirement scheduled. */
export function signingKeys(ring: KeyRing, now: number): KeyRing {
  return ring.filter((key) => key.retiredAt === null && key.activatesAt <= now);
}
