import type { JWK } from 'jose';
import { z } from 'zod';
import type { NotReadyReason } from '../db/readiness.js';

/** Where access-token signing keys live and sign: sealed in the database, or in an HSM. */
export type SigningBackend = 'local' | 'pkcs11';

/** A new signing key, as the signing-key commands record it. */
export interface GeneratedSigningKey {
  /** Its id: the RFC 7638 thumbprint of its public JWK. */
  readonly kid: string;
  readonly alg: string;
  /** Published in the JWKS, with `kid`, `alg` and `use`. */
  readonly publicJwk: JWK;
  /** The sealed private JWK (local) or an {@link HsmKeyReference}; never key material in the clear. */
  readonly stored: object;
}

/** The signing port: keys by kid, looked up lazily, so one signer serves any number of keys. */
export interface TokenSigner {
  readonly backend: SigningBackend;
  /** Makes a new Ed25519 key (inside the HSM for PKCS#11); it signs nothing until recorded. */
  generate(): Promise<GeneratedSigningKey>;
  /** The Ed25519 signature by `kid`, off the loop; `spaceId` for its HSM queue share. */
  sign(kid: string, signingInput: Buffer, spaceId: string): Promise<Buffer>;
  /** Destroys an unrecorded key {@link generate} made; never for a recorded key. */
  discard(kid: string): Promise<void>;
  /** The public JWK of key `kid`, read from where the key lives; undefined when there is none. */
  publicJwk(kid: string): Promise<JWK | undefined>;
  /** Whether it can sign now, for readiness: an HSM that stalls or is logging in again cannot. */
  health(): SignerHealth;
  /** An HSM signer's threads stuck in a stalled call (/metrics). */
  stats?(): { readonly stuckThreads: number };
  /** Releases what it holds (the HSM session and its thread). */
  close(): Promise<void>;
}

/** A signer's state for readiness; `reason` names why it cannot sign now. */
export type SignerHealth =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'stalled' | 'restarting' | 'stuck' | 'closed' };

/** Readiness's view of `signer` (see readinessWith): `signer_unavailable` while it cannot sign. */
export function signerReadiness(
  signer: Pick<TokenSigner, 'health'>,
): () => NotReadyReason | undefined {
  return () => (signer.health().ok ? undefined : 'signer_unavailable');
}

/** Liveness's view of `signer`: `signer_stuck` once a stalled HSM holds as many threads as allowed. */
export function signerLiveness(
  signer: Pick<TokenSigner, 'health'>,
): () => 'signer_stuck' | undefined {
  return () => {
    const health = signer.health();
    return !health.ok && health.reason === 'stuck' ? 'signer_stuck' : undefined;
  };
}

/** An HSM key's row: which kind and token, so a differently configured process says so. */
export const hsmKeyReferenceSchema = z.object({ hsm: z.literal('pkcs11'), token: z.string() });
export type HsmKeyReference = z.infer<typeof hsmKeyReferenceSchema>;

/** Whether a stored private half is an {@link HsmKeyReference} (nothing to seal or open). */
export function isHsmKeyReference(stored: unknown): stored is HsmKeyReference {
  return hsmKeyReferenceSchema.safeParse(stored).success;
}
