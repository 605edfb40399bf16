import { cosignedAt } from './cosignature.js';
import type { NoteVerifier } from './signed-note.js';

/** A key's raw public key, as text: what makes two witnesses one. */
const publicKeyOf = (key: NoteVerifier) =>
  key.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

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
