import type { Hash } from './merkle.js';

/** The first line of every C2SP tlog-proof (https://c2sp.org/tlog-proof). */
export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

/**
 * A proof that an entry is in a log, offline-verifiable like a detached signature: the entry's
 * index, its inclusion proof, the log's signed checkpoint (cosignatures included) and, here,
 * the entry itself as `extra` (the leaf is SHA-256(0x00 ‖ extra); not trusted on its own).
 */
export interface TlogProof {
  readonly extra?: Buffer;
  readonly index: number;
  readonly proof: readonly Hash[];
  readonly checkpoint: string;
}

/** The proof as C2SP writes it (a `.tlog-proof` file). */
export function formatTlogProof(proof: TlogProof): string {
  return [
    TLOG_PROOF_HEADER,
    ...(proof.extra ? [`extra ${proof.extra.toString('base64')}`] : []),
    `index ${proof.index}`,
    ...proof.proof.map((hash) => hash.toString('base64')),
    '',
    proof.checkpoint,
  ].join('\n');
}

/** Standard base64 as the spec writes it: padded, and what decoding it encodes back to. */
const canonical = (text: string, bytes: Buffer) => bytes.toString('base64') === text;

/** A proof read back, or an error naming what is malformed. */
export function parseTlogProof(text: string): TlogProof {
  const lines = text.split('\n');
  if (lines[0] !== TLOG_PROOF_HEADER) throw new Error(`not a ${TLOG_PROOF_HEADER}`);
  let at = 1;
  let extra: Buffer | undefined;
  if (lines[at]?.startsWith('extra ')) {
    const encoded = lines[at]!.slice('extra '.length);
    extra = Buffer.from(encoded, 'base64');
    if (!canonical(encoded, extra)) throw new Error('extra: not standard padded base64');
    at += 1;
  }
  const index = /^index (0|[1-9][0-9]*)$/.exec(lines[at] ?? '');
  if (!index || !Number.isSafeInteger(Number(index[1])))
    throw new Error('index: missing or malformed');
  at += 1;
  const proof: Hash[] = [];
  for (; at < lines.length && lines[at] !== ''; at += 1) {
    const hash = Buffer.from(lines[at]!, 'base64');
    if (!canonical(lines[at]!, hash) || hash.length !== 32)
      throw new Error(`proof line ${at + 1}: not a hash`);
    proof.push(hash);
  }
  if (lines[at] !== '' || at + 1 >= lines.length) throw new Error('no checkpoint after the proof');
  return {
    ...(extra ? { extra } : {}),
    index: Number(index[1]),
    proof,
    checkpoint: lines.slice(at + 1).join('\n'),
  };
}
