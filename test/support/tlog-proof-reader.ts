import { createHash, createPublicKey, verify } from 'node:crypto';

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/**
 * A tlog-proof checked from the specs alone (C2SP tlog-proof, signed-note, tlog-checkpoint; RFC
 * 9162 §2.1.3.2), sharing no code with the service: the entry it proves (its JSON), or undefined
 * when anything fails.
 */
export function readTlogProof(
  receipt: string,
  policy: string,
):
  | { readonly event_type: string; readonly stream_id: string; readonly event_id: string }
  | undefined {
  const lines = receipt.split('\n');
  if (lines[0] !== 'c2sp.org/tlog-proof@v1' || !lines[1]!.startsWith('extra ')) return undefined;
  const entry = Buffer.from(lines[1]!.slice(6), 'base64');
  const index = Number(lines[2]!.slice('index '.length));
  let at = 3;
  const proof: Buffer[] = [];
  while (lines[at] !== '') proof.push(Buffer.from(lines[at++]!, 'base64'));
  const note = lines.slice(at + 1).join('\n');
  const [text, signatures] = [
    note.slice(0, note.indexOf('\n\n') + 1),
    note.slice(note.indexOf('\n\n') + 2),
  ];
  // The log key: `<name>+<hex key id>+<base64(0x01 ‖ Ed25519 key)>`.
  const vkey = policy.split('\n')[0]!.split(' ')[1]!;
  // Split at the first two `+` only: the base64 key data may hold `+` itself.
  const [name, keyId] = vkey.split('+');
  const keyData = vkey.slice(name!.length + keyId!.length + 2);
  const raw = Buffer.from(keyData!, 'base64');
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.subarray(1).toString('base64url') },
    format: 'jwk',
  });
  const signed = signatures.split('\n').some((line) => {
    const match = /^— (\S+) (\S+)$/.exec(line);
    if (!match || match[1] !== name) return false;
    const signature = Buffer.from(match[2]!, 'base64');
    return (
      signature.subarray(0, 4).toString('hex') === keyId &&
      verify(null, Buffer.from(text), key, signature.subarray(4))
    );
  });
  const [origin, sizeText, rootText] = text.split('\n');
  if (!signed || origin !== name) return undefined;
  const size = Number(sizeText);
  // RFC 9162 §2.1.3.2: an inclusion proof's verification.
  let fn = index;
  let sn = size - 1;
  let r = sha256(Buffer.from([0]), entry);
  for (const p of proof) {
    if (sn === 0) return undefined;
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Buffer.from([1]), p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = sha256(Buffer.from([1]), r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0 || r.toString('base64') !== rootText) return undefined;
  return JSON.parse(entry.toString()) as NonNullable<ReturnType<typeof readTlogProof>>;
}
