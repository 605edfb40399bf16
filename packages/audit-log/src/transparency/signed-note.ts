import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import {
  COSIGNATURE_ML_DSA_44,
  isKeyType,
  NOTE_ED25519,
  privateKeyOf,
  publicKeyOf,
  rawKeyBytes,
  rawPublicKey,
  seedOf,
  type Ed25519Type,
  type KeyType,
} from './key-material.js';

/**
 * C2SP signed notes (https://c2sp.org/signed-note), the envelope of transparency-log checkpoints
 * that Go's sumdb/note, Trillian's tools, Sigsum and the witness network read: the text, a blank
 * line, then one line per signature, `— <key name> <base64(key id ‖ signature)>`. Ed25519 keys,
 * and ML-DSA-44 cosigner keys (C2SP tlog-cosignature); a key's id is the first 4 bytes of
 * SHA-256(name ‖ "\n" ‖ key type ‖ public key).
 */

export { NOTE_ED25519, COSIGNATURE_ED25519, COSIGNATURE_ML_DSA_44 } from './key-material.js';

const DASH = '\u2014 ';

interface NamedKey {
  readonly name: string;
  readonly keyId: Buffer;
  /** The public key as a vkey carries it: 32 bytes (Ed25519), 1,312 (ML-DSA-44). */
  readonly rawKey: Buffer;
}

/**
 * A key as a note names it: its name and the public key that checks its signatures. Type 0x01
 * for a log's note signatures, 0x04 and 0x06 for a witness's cosignatures.
 */
export type NoteVerifier =
  | (NamedKey & { readonly type: Ed25519Type; readonly publicKey: KeyObject })
  | (NamedKey & {
      readonly type: typeof COSIGNATURE_ML_DSA_44;
      /** Undefined on a Node without ML-DSA-44: the key is read, its signatures not checked. */
      readonly publicKey: KeyObject | undefined;
    });

/** A key that signs notes. */
export type NoteSigner = NoteVerifier & {
  readonly publicKey: KeyObject;
  readonly privateKey: KeyObject;
};

/**
 * The signer key's text form (Go's sumdb/note): `PRIVATE+KEY+<name>+<hex id>+<base64(type ‖
 * seed)>`; an ML-DSA-44 key's seed is its 32-byte FIPS 204 seed, as an Ed25519 key's is.
 */
export function signerKeyText(key: NoteSigner): string {
  const raw = Buffer.concat([Buffer.from([key.type]), seedOf(key.type, key.privateKey)]);
  return `PRIVATE+KEY+${key.name}+${key.keyId.toString('hex')}+${raw.toString('base64')}`;
}

function validName(name: string): boolean {
  return name.length > 0 && !/[\s+]/u.test(name);
}

function keyIdOf(name: string, type: KeyType, rawPublicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(name, 'utf8')
    .update(Buffer.from([0x0a, type]))
    .update(rawPublicKey)
    .digest()
    .subarray(0, 4);
}

/** A signer from a name and Node's private key: Ed25519, or ML-DSA-44 for type 0x06. */
export function noteSigner(
  name: string,
  privateKey: KeyObject,
  type: KeyType = NOTE_ED25519,
): NoteSigner {
  const publicKey = createPublicKey(privateKey);
  return { ...noteVerifier(name, publicKey, type), publicKey, privateKey };
}

/** The verifier of a name and Node's public key: Ed25519, or ML-DSA-44 for type 0x06. */
export function noteVerifier(
  name: string,
  publicKey: KeyObject,
  type: KeyType = NOTE_ED25519,
): NoteVerifier {
  if (!validName(name)) throw new Error(`a note key name has no spaces or "+": ${name}`);
  const rawKey = rawPublicKey(type, publicKey);
  return { name, type, keyId: keyIdOf(name, type, rawKey), rawKey, publicKey };
}

/** The verifier key in the text form tools exchange: `<name>+<hex key id>+<base64(type ‖ key)>`. */
export function verifierKeyText(key: NoteVerifier): string {
  const raw = Buffer.concat([Buffer.from([key.type]), key.rawKey]);
  return `${key.name}+${key.keyId.toString('hex')}+${raw.toString('base64')}`;
}

/**
 * Parses a verifier key's text form; throws when it is not one, or its id does not match. An
 * ML-DSA-44 key is read on any Node (a policy naming one still reads); on a Node without ML-DSA-44
 * it has no publicKey, and its signatures are not checked.
 */
export function parseVerifierKey(text: string): NoteVerifier {
  // The key's base64 may hold "+" itself: the name and the id are the first two fields.
  const [name, id, ...tail] = text.split('+');
  const encoded = tail.join('+');
  const raw = Buffer.from(encoded, 'base64');
  if (!name || !validName(name) || !/^[0-9a-f]{8}$/.test(id ?? '')) {
    throw new Error('not a note verifier key: <name>+<8 hex digits>+<base64 key>');
  }
  const type = raw[0];
  if (
    !isKeyType(type) ||
    raw.length !== 1 + rawKeyBytes(type) ||
    raw.toString('base64') !== encoded
  ) {
    throw new Error(
      'not a note verifier key: only Ed25519 (types 0x01, 0x04) and ML-DSA-44 (0x06) keys are read',
    );
  }
  const rawKey = raw.subarray(1);
  const keyId = keyIdOf(name, type, rawKey);
  if (keyId.toString('hex') !== id) throw new Error('note verifier key: its id does not match');
  const publicKey = publicKeyOf(type, rawKey);
  return type === COSIGNATURE_ML_DSA_44
    ? { name, type, keyId, rawKey, publicKey }
    : { name, type, keyId, rawKey, publicKey: publicKey! };
}

/**
 * Parses a signer key (`PRIVATE+KEY+<name>+<hex id>+<base64(type ‖ seed)>`, Go's sumdb/note
 * form). An ML-DSA-44 key throws on a Node without ML-DSA-44: ask mlDsaAvailable() first.
 */
export function parseSignerKey(text: string): NoteSigner {
  const [p, k, name, id, ...tail] = text.split('+');
  const raw = Buffer.from(tail.join('+'), 'base64');
  const type = raw[0];
  if (p !== 'PRIVATE' || k !== 'KEY' || !name || raw.length !== 33 || !isKeyType(type)) {
    throw new Error('not a note signer key: PRIVATE+KEY+<name>+<id>+<base64 key>');
  }
  const signer = noteSigner(name, privateKeyOf(type, raw.subarray(1)), type);
  if (signer.keyId.toString('hex') !== id)
    throw new Error('note signer key: its id does not match');
  return signer;
}

/** The note's signature line by `signer` over `text` (which must end with a newline). */
export function signatureLine(signer: NoteSigner, text: string): string {
  // Type 0x06 signs a subtree/v1 message, never a note's text: cosignatureLine makes those.
  if (signer.type === COSIGNATURE_ML_DSA_44) throw new Error('an ML-DSA-44 key only cosigns');
  const signature = sign(null, Buffer.from(text, 'utf8'), signer.privateKey);
  return `${DASH}${signer.name} ${Buffer.concat([signer.keyId, signature]).toString('base64')}\n`;
}

/** A signed note: `text`, a blank line, a signature line per signer. */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  if (!text.endsWith('\n') || text.includes('\n\n')) {
    throw new Error('a note text ends with a newline and has no blank line');
  }
  return `${text}\n${signers.map((signer) => signatureLine(signer, text)).join('')}`;
}

/** A note's text and its signature lines, as written. */
export interface ParsedNote {
  readonly text: string;
  readonly signatures: readonly {
    readonly name: string;
    readonly keyId: Buffer;
    readonly signature: Buffer;
  }[];
}

/** Splits a signed note; throws when it is not one. */
export function parseNote(note: string): ParsedNote {
  const split = note.lastIndexOf('\n\n');
  if (split < 0 || !note.endsWith('\n'))
    throw new Error('not a signed note: no blank line before signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  const signatures = lines.map((line) => {
    const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/u.exec(line);
    const blob = Buffer.from(match?.[2] ?? '', 'base64');
    if (!match || blob.length < 5) throw new Error('not a signed note: malformed signature line');
    return { name: match[1]!, keyId: blob.subarray(0, 4), signature: blob.subarray(4) };
  });
  return { text, signatures };
}

/**
 * The note's text when it carries a valid signature by `verifier` (signatures by other keys are
 * ignored, as the format says); undefined otherwise.
 */
export function openNote(note: string, verifier: NoteVerifier): string | undefined {
  return openedBy(note, verifier, 'any');
}

/**
 * {@link openNote} as a witness must (C2SP tlog-witness): every line naming the key (its name and
 * id) verifies, and one at least does.
 */
export function openNoteStrictly(note: string, verifier: NoteVerifier): string | undefined {
  return openedBy(note, verifier, 'every');
}

function openedBy(
  note: string,
  verifier: NoteVerifier,
  lines: 'any' | 'every',
): string | undefined {
  let parsed: ParsedNote;
  try {
    parsed = parseNote(note);
  } catch {
    return undefined;
  }
  if (verifier.type !== NOTE_ED25519) return undefined;
  const named = parsed.signatures.filter(
    (line) => line.name === verifier.name && line.keyId.equals(verifier.keyId),
  );
  const valid = (line: (typeof named)[number]) =>
    verify(null, Buffer.from(parsed.text, 'utf8'), verifier.publicKey, line.signature);
  const signed = lines === 'any' ? named.some(valid) : named.length > 0 && named.every(valid);
  return signed ? parsed.text : undefined;
}
