import { createHash } from 'node:crypto';
import { parseCheckpointText, type Checkpoint } from './checkpoint.js';
import { cosignatureLine } from './cosignature.js';
import { EMPTY_ROOT, verifyConsistency, type Hash } from './merkle.js';
import { openNoteStrictly, parseNote, type NoteSigner, type NoteVerifier } from './signed-note.js';

/** What a witness remembers of a log: the latest tree head it cosigned. */
export interface TreeHead {
  readonly size: number;
  readonly root: Hash;
  /**
   * The checkpoint as cosigned, for the monitoring GET: its text, the log's signature lines that
   * verified, and this witness's cosignature. Absent for heads kept before it was.
   */
  readonly note?: string;
}

/** What `advance` did: recorded the head, found another head there first, or had no room. */
export type Advance = 'advanced' | 'moved' | 'full';

/** A witness's memory. `advance` is atomic: the check of the old head and the update are one. */
export interface WitnessState {
  latest(origin: string): Promise<TreeHead | undefined>;
  /**
   * Records `next` for `origin` if its latest head is still `expected` (size and root; undefined:
   * none yet), and 'moved' otherwise; 'full' when `origin` is new and no more origins are kept.
   */
  advance(origin: string, expected: TreeHead | undefined, next: TreeHead): Promise<Advance>;
}

/** Whether two remembered heads are the same (both absent, or the same size and root). */
export function sameHead(a: TreeHead | undefined, b: TreeHead | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.size === b.size && a.root.equals(b.root);
}

/** The longest checkpoint a witness keeps, with the log's signature line, in UTF-8 bytes. */
export const MAX_CHECKPOINT_BYTES = 4096;

/**
 * The longest note a witness keeps of a head (the monitoring GET's answer), in UTF-8 bytes: the
 * checkpoint and its own cosignature lines, an ML-DSA-44 one alone about 3.3 KB.
 */
export const MAX_NOTE_BYTES = MAX_CHECKPOINT_BYTES + 4096;

/** The longest origin a witness keeps, in UTF-8 bytes (each is a key of its state). */
export const MAX_ORIGIN_BYTES = 255;

/** An HTTP answer, as the protocol defines it. */
export interface WitnessAnswer {
  readonly status: 200 | 400 | 403 | 404 | 409 | 422;
  readonly contentType: string;
  readonly body: string;
}

const text = (status: WitnessAnswer['status'], body: string): WitnessAnswer => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  body: `${body}\n`,
});
const conflict = (size: number): WitnessAnswer => ({
  status: 409,
  contentType: 'text/x.tlog.size',
  body: `${size}\n`,
});

/** The request body: `old <size>`, up to 63 proof hashes, a blank line, the signed checkpoint. */
function parseRequest(body: string): { old: number; proof: Buffer[]; note: string } | undefined {
  const blank = body.indexOf('\n\n');
  if (blank < 0) return undefined;
  const head = body.slice(0, blank).split('\n');
  const old = /^old (0|[1-9][0-9]*)$/.exec(head[0] ?? '');
  const proof = head.slice(1).map((line) => Buffer.from(line, 'base64'));
  const canonical = head
    .slice(1)
    .every((line, i) => proof[i]!.length === 32 && proof[i]!.toString('base64') === line);
  if (!old || !canonical || proof.length > 63) return undefined;
  // A size past 2^53 - 1 would be rounded to another size: refused, never compared.
  if (!Number.isSafeInteger(Number(old[1]))) return undefined;
  return { old: Number(old[1]), proof, note: body.slice(blank + 2) };
}

/**
 * C2SP tlog-witness `add-checkpoint` (https://c2sp.org/tlog-witness): cosigns the checkpoint only
 * when a log key it trusts signed it and it extends, by a valid consistency proof, the tree head
 * this witness cosigned last for that log. An old size it does not hold is a 409; another root at
 * the size it cosigned, or a larger tree that does not contain its head, is a 422. Either way
 * it never forgets the head it vouched for. Any tree extends the empty one: from size 0 no proof
 * is needed (and none is taken).
 */
export async function addCheckpoint(
  body: string,
  options: {
    /** Its key, or keys: one cosignature line each (C2SP: Ed25519 kept, ML-DSA-44 SHOULD). */
    readonly witness: NoteSigner | readonly NoteSigner[];
    /** The log keys it trusts, by origin (a Map, or a lookup that also knows origin prefixes). */
    readonly logs: { get(origin: string): NoteVerifier | undefined };
    readonly state: WitnessState;
    readonly nowSeconds: () => number;
  },
): Promise<WitnessAnswer> {
  const request = parseRequest(body);
  if (!request) return text(400, 'expected "old <size>", proof lines, a blank line, a checkpoint');
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpointText(parseNote(request.note).text);
  } catch {
    return text(400, 'the checkpoint is not a signed C2SP checkpoint');
  }
  if (!Number.isSafeInteger(checkpoint.size)) return text(400, 'tree size past 2^53 - 1');
  if (Buffer.byteLength(checkpoint.origin) > MAX_ORIGIN_BYTES)
    return text(400, `an origin is at most ${MAX_ORIGIN_BYTES} bytes`);
  const logKey = options.logs.get(checkpoint.origin);
  if (!logKey) return text(404, `unknown log origin: ${checkpoint.origin}`);
  // C2SP: a line naming the log's key (name and id) whose signature fails is a 403 too.
  if (openNoteStrictly(request.note, logKey) === undefined)
    return text(403, 'no valid signature by the log, or an invalid one under its key');
  const { old, proof } = request;
  if (old > checkpoint.size) return text(400, 'old size is larger than the checkpoint');
  const latest = await options.state.latest(checkpoint.origin);
  if ((latest?.size ?? 0) !== old) return conflict(latest?.size ?? 0);
  if (checkpoint.size === 0 && !checkpoint.root.equals(EMPTY_ROOT))
    return text(422, 'an empty tree has the empty root');
  // The same size is the same tree or a fork of it: the one it cosigned stays (C2SP: 422).
  if (latest && latest.size === checkpoint.size && !latest.root.equals(checkpoint.root))
    return text(422, `another root at the size ${latest.size} this witness cosigned`);
  if (old === 0 && proof.length > 0) return text(422, 'no proof from the empty tree');
  if (old > 0 && !verifyConsistency(old, checkpoint.size, proof, latest!.root, checkpoint.root)) {
    return text(422, `not consistent with the tree head of size ${old} this witness cosigned`);
  }
  const parsed = parseNote(request.note);
  const seconds = options.nowSeconds();
  const cosignature = [options.witness]
    .flat()
    .map((key) => cosignatureLine(key, parsed.text, seconds))
    .join('');
  // What the monitoring GET serves: the body, the log's lines under its key, the cosignatures.
  // One line of the log's key (every one verified): a note as small as its checkpoint allows.
  const logLine = parsed.signatures.find(
    (line) => line.name === logKey.name && line.keyId.equals(logKey.keyId),
  )!;
  const signedBy = Buffer.concat([logLine.keyId, logLine.signature]).toString('base64');
  const checkpointNote = `${parsed.text}\n\u2014 ${logLine.name} ${signedBy}\n`;
  const note = `${checkpointNote}${cosignature}`;
  if (
    Buffer.byteLength(checkpointNote) > MAX_CHECKPOINT_BYTES ||
    Buffer.byteLength(note) > MAX_NOTE_BYTES
  ) {
    return text(400, `a checkpoint is at most ${MAX_CHECKPOINT_BYTES} bytes with its signature`);
  }
  // The head it holds again: cosigned, and its kept note (at most an hour old, C2SP) stays.
  if (latest?.note !== undefined && sameHead(latest, checkpoint)) {
    return { status: 200, contentType: 'text/plain; charset=utf-8', body: cosignature };
  }
  const next = { size: checkpoint.size, root: checkpoint.root, note };
  const advanced = await options.state.advance(checkpoint.origin, latest, next);
  if (advanced === 'full') return text(403, 'this witness keeps no more origins');
  if (advanced === 'moved') {
    return conflict((await options.state.latest(checkpoint.origin))?.size ?? 0);
  }
  return { status: 200, contentType: 'text/plain; charset=utf-8', body: cosignature };
}

/** A witness's memory in a Map, at most `maxOrigins` origins: for tests and the file store. */
export function memoryWitnessState(
  initial: Iterable<[string, TreeHead]> = [],
  maxOrigins = Number.POSITIVE_INFINITY,
): WitnessState & {
  entries(): [string, TreeHead][];
} & Pick<WitnessMonitoring, 'byOriginHash'> {
  const heads = new Map(initial);
  // The monitoring GET's lookup: one hash per origin, made once.
  const hashes = new Map([...heads.keys()].map((origin) => [originHash(origin), origin]));
  return {
    latest: async (origin) => heads.get(origin),
    advance: async (origin, expected, next) => {
      if (!sameHead(heads.get(origin), expected)) return 'moved';
      if (!heads.has(origin) && heads.size >= maxOrigins) return 'full';
      heads.set(origin, next);
      hashes.set(originHash(origin), origin);
      return 'advanced';
    },
    entries: () => [...heads],
    byOriginHash: async (hash) => {
      const origin = hashes.get(hash);
      const head = origin === undefined ? undefined : heads.get(origin);
      return head && (head.note ?? 'kept-before-notes');
    },
  };
}

/** C2SP tlog-witness's monitoring path names a log by the SHA-256 of its origin, lowercase hex. */
export const originHash = (origin: string) => createHash('sha256').update(origin).digest('hex');

/**
 * What the monitoring GET reads: the note last cosigned for the origin a hash names; undefined
 * for a log never cosigned; 'kept-before-notes' for one cosigned before notes were kept.
 */
export interface WitnessMonitoring {
  byOriginHash(hash: string): Promise<string | 'kept-before-notes' | undefined>;
}
