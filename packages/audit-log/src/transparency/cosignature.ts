import { sign, verify } from 'node:crypto';
import {
  COSIGNATURE_ED25519,
  parseNote,
  type NoteSigner,
  type NoteVerifier,
} from './signed-note.js';

/**
 * C2SP cosignatures (https://c2sp.org/tlog-cosignature, v1, Ed25519): a witness's note signature
 * on a checkpoint, over `cosignature/v1`, `time <seconds>` and the checkpoint's text; the blob is
 * key id ‖ 8-byte big-endian timestamp ‖ signature, the key id of key type 0x04.
 */

const message = (checkpointText: string, seconds: bigint) =>
  Buffer.from(`cosignature/v1\ntime ${seconds}\n${checkpointText}`, 'utf8');

/** The witness's cosignature line on `checkpointText`, timestamped `seconds`. */
export function cosignatureLine(
  witness: NoteSigner,
  checkpointText: string,
  seconds: number,
): string {
  if (witness.type !== COSIGNATURE_ED25519) throw new Error('a cosigner key has type 0x04');
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64BE(BigInt(seconds));
  const signature = sign(null, message(checkpointText, BigInt(seconds)), witness.privateKey);
  const blob = Buffer.concat([witness.keyId, timestamp, signature]);
  return `\u2014 ${witness.name} ${blob.toString('base64')}\n`;
}

/**
 * The time (POSIX seconds) of a valid cosignature by `witness` on the signed checkpoint `note`,
 * or undefined when it carries none. Signatures by other keys are ignored.
 */
export function cosignedAt(note: string, witness: NoteVerifier): number | undefined {
  if (witness.type !== COSIGNATURE_ED25519) return undefined;
  let parsed: ReturnType<typeof parseNote>;
  try {
    parsed = parseNote(note);
  } catch {
    return undefined;
  }
  for (const line of parsed.signatures) {
    if (line.name !== witness.name || !line.keyId.equals(witness.keyId)) continue;
    if (line.signature.length !== 72) continue;
    const seconds = line.signature.readBigUInt64BE(0);
    if (
      verify(null, message(parsed.text, seconds), witness.publicKey, line.signature.subarray(8))
    ) {
      return Number(seconds);
    }
  }
  return undefined;
}
