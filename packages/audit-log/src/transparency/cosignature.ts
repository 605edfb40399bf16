import { sign, verify } from 'node:crypto';
import { parseCheckpointText } from './checkpoint.js';
import { ML_DSA_44_SIGNATURE_BYTES } from './ml-dsa.js';
import {
  COSIGNATURE_ED25519,
  COSIGNATURE_ML_DSA_44,
  parseNote,
  type NoteSigner,
  type NoteVerifier,
} from './signed-note.js';

/**
 * C2SP cosignatures (https://c2sp.org/tlog-cosignature): a witness's note signature on a
 * checkpoint, the blob key id ‖ 8-byte big-endian timestamp ‖ signature. Two kinds, told apart by
 * the key type in the key id: Ed25519 (0x04) signs `cosignature/v1`, `time <seconds>` and the
 * checkpoint's text; ML-DSA-44 (0x06) signs the binary `subtree/v1` message, which commits to
 * the cosigner's name and not to the checkpoint's extension lines.
 */

const ed25519Message = (checkpointText: string, seconds: bigint) =>
  Buffer.from(`cosignature/v1\ntime ${seconds}\n${checkpointText}`, 'utf8');

const u64 = (value: bigint) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(value);
  return bytes;
};

/** A TLS `opaque <1..2^8-1>`: one length byte, then the bytes. */
function opaque8(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length < 1 || bytes.length > 255) throw new Error('a name or origin is 1-255 bytes');
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** `cosigned_message` of a whole checkpoint: the subtree [0, size) and its root. */
function subtreeMessage(cosigner: string, seconds: bigint, checkpointText: string): Buffer {
  const { origin, root } = parseCheckpointText(checkpointText);
  // The size as written, exactly: Checkpoint.size is a number, exact only to 2^53.
  const size = BigInt(checkpointText.split('\n')[1]!);
  return Buffer.concat([
    Buffer.from('subtree/v1\n\0', 'latin1'),
    opaque8(cosigner),
    u64(seconds),
    opaque8(origin),
    u64(0n),
    u64(size),
    root,
  ]);
}

/** The witness's cosignature line on `checkpointText`, timestamped `seconds`. */
export function cosignatureLine(
  witness: NoteSigner,
  checkpointText: string,
  seconds: number,
): string {
  const time = BigInt(seconds);
  let signature: Buffer;
  if (witness.type === COSIGNATURE_ED25519) {
    signature = sign(null, ed25519Message(checkpointText, time), witness.privateKey);
  } else if (witness.type === COSIGNATURE_ML_DSA_44) {
    signature = sign(null, subtreeMessage(witness.name, time, checkpointText), witness.privateKey);
  } else {
    throw new Error('a cosigner key has type 0x04 or 0x06');
  }
  const blob = Buffer.concat([witness.keyId, u64(time), signature]);
  return `\u2014 ${witness.name} ${blob.toString('base64')}\n`;
}

/**
 * What the signed checkpoint `note` holds of `witness`: the time (POSIX seconds) of a valid
 * cosignature; 'unverifiable' when its only lines under the key are ML-DSA-44 ones this Node
 * cannot check (never a cosignature to count); undefined when none. Other keys' lines are ignored.
 */
export function cosignatureOf(
  note: string,
  witness: NoteVerifier,
): number | 'unverifiable' | undefined {
  let parsed: ReturnType<typeof parseNote>;
  try {
    parsed = parseNote(note);
  } catch {
    return undefined;
  }
  let unverifiable = false;
  for (const line of parsed.signatures) {
    if (line.name !== witness.name || !line.keyId.equals(witness.keyId)) continue;
    const seconds = line.signature.length >= 8 ? line.signature.readBigUInt64BE(0) : 0n;
    const signature = line.signature.subarray(8);
    if (witness.type === COSIGNATURE_ED25519) {
      if (signature.length !== 64) continue;
      if (verify(null, ed25519Message(parsed.text, seconds), witness.publicKey, signature)) {
        return Number(seconds);
      }
    } else if (witness.type === COSIGNATURE_ML_DSA_44) {
      if (signature.length !== ML_DSA_44_SIGNATURE_BYTES || seconds > 2n ** 63n - 1n) continue;
      if (!witness.publicKey) {
        unverifiable = true;
        continue;
      }
      let message: Buffer;
      try {
        message = subtreeMessage(witness.name, seconds, parsed.text);
      } catch {
        return undefined; // not a checkpoint: nothing to have cosigned
      }
      if (verify(null, message, witness.publicKey, signature)) return Number(seconds);
    }
  }
  return unverifiable ? 'unverifiable' : undefined;
}

/**
 * The time (POSIX seconds) of a valid cosignature by `witness` on the signed checkpoint `note`,
 * or undefined when it carries none (or only lines this Node cannot check).
 */
export function cosignedAt(note: string, witness: NoteVerifier): number | undefined {
  const found = cosignatureOf(note, witness);
  return typeof found === 'number' ? found : undefined;
}
