import { createHash, verify, type KeyObject } from 'node:crypto';

/**
 * A JWS checkpoint over the retired hash chains (issue 45), as exports of format 1 carry them:
 * what it signed, and its signature under the audit key, checked offline.
 */

/** What a JWS checkpoint signed; signed by the audit key (audit-key.ts). */
export interface CheckpointStatement {
  readonly space_id: string;
  readonly checkpoint_number: number;
  readonly sequence: number;
  readonly head_hash: string;
  readonly previous_checkpoint: string | null;
  readonly created_at: string;
}

/** The hash a checkpoint's successor names as `previous_checkpoint`. */
export function checkpointDigest(jws: string): string {
  return createHash('sha256').update(jws).digest('hex');
}

const TYP = 'audit-checkpoint+jws';

/** The statement of a checkpoint whose signature verifies under `publicKey`, else undefined. */
export function verifyCheckpoint(
  publicKey: KeyObject,
  jws: string,
): CheckpointStatement | undefined {
  const parts = jws.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  try {
    const protectedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as {
      alg?: string;
      typ?: string;
    };
    if (protectedHeader.alg !== 'EdDSA' || protectedHeader.typ !== TYP) return undefined;
    const valid = verify(
      null,
      Buffer.from(`${header}.${payload}`),
      publicKey,
      Buffer.from(signature, 'base64url'),
    );
    return valid
      ? (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CheckpointStatement)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The statement of a checkpoint, signature not checked (to report what a forged one claims). */
export function readCheckpointStatement(jws: string): CheckpointStatement | undefined {
  try {
    return JSON.parse(
      Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as CheckpointStatement;
  } catch {
    return undefined;
  }
}
