import { readOrCreateFile } from '../read-or-create-file.js';
import { mlDsaAvailable, mlDsaMissing, newMlDsaPrivateKey } from '../transparency/ml-dsa.js';
import {
  COSIGNATURE_ML_DSA_44,
  noteSigner,
  parseSignerKey,
  signerKeyText,
  type NoteSigner,
} from '../transparency/signed-note.js';
import { ConfigError } from 'token-authority-settings';

/** The witness's ML-DSA-44 key file in its --dir, beside witness.key (Ed25519). */
export const ML_DSA_KEY_FILE = 'witness-ml-dsa-44.key';

/**
 * Whether the witness can cosign with ML-DSA-44 under `name`, asked before its folder is touched:
 * a Node without ML-DSA-44 is a setup error at start, never a failed request later; and the
 * subtree/v1 message holds the name in at most 255 bytes.
 */
export function checkMlDsaSetup(name: string): void {
  if (!mlDsaAvailable()) throw new ConfigError([`--ml-dsa-44: ${mlDsaMissing()}`]);
  if (Buffer.byteLength(name) > 255) {
    throw new ConfigError(['--name: at most 255 bytes with --ml-dsa-44 (C2SP subtree/v1)']);
  }
}

/** The ML-DSA-44 cosigner key (type 0x06) in `file`, named `name`; created when missing. */
export async function openMlDsaKey(file: string, name: string): Promise<NoteSigner> {
  checkMlDsaSetup(name);
  const text = await readOrCreateFile(file, () =>
    signerKeyText(noteSigner(name, newMlDsaPrivateKey(), COSIGNATURE_ML_DSA_44)),
  );
  let key: NoteSigner;
  try {
    key = parseSignerKey(text);
  } catch (error) {
    throw new ConfigError([`--dir: ${file}: ${(error as Error).message}`]);
  }
  if (key.type !== COSIGNATURE_ML_DSA_44) {
    throw new ConfigError([`--dir: ${file} holds no ML-DSA-44 key (type 0x06)`]);
  }
  if (key.name !== name) {
    throw new ConfigError([`--name ${name}: the witness's key in ${file} is named ${key.name}`]);
  }
  return key;
}
