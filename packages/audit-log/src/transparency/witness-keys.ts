import { cosignedAt } from './cosignature.js';
import { mlDsaMissing } from './ml-dsa.js';
import {
  COSIGNATURE_ED25519,
  COSIGNATURE_ML_DSA_44,
  parseVerifierKey,
  type NoteVerifier,
} from './signed-note.js';

/** A key's raw public key, as text: what makes two witnesses one (C2SP tlog-policy). */
const publicKeyOf = (key: NoteVerifier) => key.rawKey.toString('base64');

/**
 * The witness keys given, each public key once (the first name it was given under). A
 * cosignature's signature does not cover the key's name, so the same key listed twice, under one
 * name or two, is one witness: counted twice, one witness would meet a quorum of two.
 */
export function distinctWitnesses(keys: readonly NoteVerifier[]): NoteVerifier[] {
  const seen = new Set<string>();
  return keys.filter((key) => {
    const id = publicKeyOf(key);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The distinct witnesses among `witnesses` whose cosignature on the signed `note` verifies. */
export function cosigners(note: string, witnesses: readonly NoteVerifier[]): NoteVerifier[] {
  return distinctWitnesses(witnesses).filter((witness) => cosignedAt(note, witness) !== undefined);
}

/**
 * A cosigner's vkey as a command takes it (`--witness`): type 0x04, or 0x06 (ML-DSA-44) on a Node
 * that checks ML-DSA-44; a key whose cosignatures it cannot check would only count as missing.
 */
export function parseCosignerKey(text: string): NoteVerifier {
  const key = parseVerifierKey(text.trim());
  if (key.type !== COSIGNATURE_ED25519 && key.type !== COSIGNATURE_ML_DSA_44) {
    throw new Error('--witness takes a cosigner key (type 0x04, or 0x06: ML-DSA-44)');
  }
  if (!key.publicKey) throw new Error(`--witness ${key.name}: ${mlDsaMissing()}`);
  return key;
}
