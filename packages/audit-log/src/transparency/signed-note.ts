import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

/**
 * C2SP signed notes (https://c2sp.org/signed-note), the envelope of transparency-log checkpoints
 * that Go's sumdb/note, Trillian's tools, Sigsum and the witness network read: the text, a blank
 * line, then one line per signature, `— <key name> <base64(key id ‖ signature)>`. Ed25519 keys
 * only; a key's id is the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key).
 */

const DASH = '\u2014 ';
/** The key types of a key id and a vkey: a note's own signature, and a cosignature/v1. */
export const NOTE_ED25519 = 0x01;
export const COSIGNATURE_ED25519 = 0x04;
type KeyType = typeof NOTE_ED25519 | typeof COSIGNATURE_ED25519;
/** Node's DER prefixes around a raw 32-byte Ed25519 key. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A key as a note names it: its name and the public key that checks its signatures. */
export interface NoteVerifier {
  readonly name: string;
  /** 0x01 for a log's note signatures, 0x04 for a witness's cosignatures. */
  readonly type: KeyType;
  readonly keyId: Buffer;
  readonly publicKey: KeyObject;
}

/** A key that signs notes. */
export interface NoteSigner extends NoteVerifier {
  readonly privateKey: KeyObject;
}

const isKeyType = (type: number | undefined): type is KeyType =>
  type === NOTE_ED25519 || type === COSIGNATURE_ED25519;

/** The signer key's text form (Go's sumdb/note): `PRIVATE+KEY+<name>+<hex id>+<base64(type ‖ seed)>`. */
export function signerKeyText(key: NoteSigner): string {
  const seed = key.privateKey
    .export({ format: 'der', type: 'pkcs8' })
    .subarray(PKCS8_PREFIX.length);
  const raw = Buffer.concat([Buffer.from([key.type]), seed]);
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

function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
}

/** A signer from a name and Node's Ed25519 private key. */
export function noteSigner(
  name: string,
  privateKey: KeyObject,
  type: KeyType = NOTE_ED25519,
): NoteSigner {
  if (!validName(name)) throw new Error(`a note key name has no spaces or "+": ${name}`);
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('note keys are Ed25519');
  const publicKey = createPublicKey(privateKey);
  return { name, type, keyId: keyIdOf(name, type, rawPublicKey(publicKey)), publicKey, privateKey };
}

/** The verifier of a name and Node's Ed25519 public key. */
export function noteVerifier(
  name: string,
  publicKey: KeyObject,
  type: KeyType = NOTE_ED25519,
): NoteVerifier {
  if (!validName(name)) throw new Error(`a note key name has no spaces or "+": ${name}`);
  return { name, type, keyId: keyIdOf(name, type, rawPublicKey(publicKey)), publicKey };
}

/** The verifier key in the text form tools exchange: `<name>+<hex key id>+<base64(0x01 ‖ key)>`. */
export function verifierKeyText(key: NoteVerifier): string {
  const raw = Buffer.concat([Buffer.from([key.type]), rawPublicKey(key.publicKey)]);
  return `${key.name}+${key.keyId.toString('hex')}+${raw.toString('base64')}`;
}

/** Parses a verifier key's text form; throws when it is not one, or its id does not match. */
export function parseVerifierKey(text: string): NoteVerifier {
  // The key's base64 may hold "+" itself: the name and the id are the first two fields.
  const [name, id, ...tail] = text.split('+');
  const encoded = tail.join('+');
  const raw = Buffer.from(encoded, 'base64');
  if (!name || !validName(name) || !/^[0-9a-f]{8}$/.test(id ?? '')) {
    throw new Error('not a note verifier key: <name>+<8 hex digits>+<base64 key>');
  }
  const type = raw[0];
  if (raw.length !== 33 || !isKeyType(type) || raw.toString('base64') !== encoded) {
    throw new Error('not a note verifier key: only Ed25519 keys (types 0x01 and 0x04) are read');
  }
  const publicKey = createPublicKey({
    key: Buffer.concat([SPKI_PREFIX, raw.subarray(1)]),
    format: 'der',
    type: 'spki',
  });
  const keyId = keyIdOf(name, type, raw.subarray(1));
  if (keyId.toString('hex') !== id) throw new Error('note verifier key: its id does not match');
  return { name, type, keyId, publicKey };
}

/** Parses a signer key (`PRIVATE+KEY+<name>+<hex id>+<base64(0x01 ‖ seed)>`, Go's sumdb/note form). */
export function parseSignerKey(text: string): NoteSigner {
  const [p, k, name, id, ...tail] = text.split('+');
  const raw = Buffer.from(tail.join('+'), 'base64');
  if (p !== 'PRIVATE' || k !== 'KEY' || !name || raw.length !== 33 || !isKeyType(raw[0])) {
    throw new Error('not a note signer key: PRIVATE+KEY+<name>+<id>+<base64 key>');
  }
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, raw.subarray(1)]),
    format: 'der',
    type: 'pkcs8',
  });
  const signer = noteSigner(name, privateKey, raw[0] as KeyType);
  if (signer.keyId.toString('hex') !== id)
    throw new Error('note signer key: its id does not match');
  return signer;
}

/** The note's signature line by `signer` over `text` (which must end with a newline). */
export function signatureLine(signer: NoteSigner, text: string): string {
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
