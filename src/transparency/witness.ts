import { parseCheckpointText, type Checkpoint } from './checkpoint.js';
import { cosignatureLine } from './cosignature.js';
import { EMPTY_ROOT, verifyConsistency, type Hash } from './merkle.js';
import { openNote, parseNote, type NoteSigner, type NoteVerifier } from './signed-note.js';

/** What a witness remembers of a log: the latest tree head it cosigned. */
export interface TreeHead {
  readonly size: number;
  readonly root: Hash;
}

/** A witness's memory. `advance` is atomic: the check of the old size and the update are one. */
export interface WitnessState {
  latest(origin: string): Promise<TreeHead | undefined>;
  /** Records `next` for `origin` if its latest size is still `expectedSize`; false otherwise. */
  advance(origin: string, expectedSize: number, next: TreeHead): Promise<boolean>;
}

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
  return { old: Number(old[1]), proof, note: body.slice(blank + 2) };
}

/**
 * C2SP tlog-witness `add-checkpoint` (https://c2sp.org/tlog-witness): cosigns the checkpoint only
 * when a log key it trusts signed it and it extends, by a valid consistency proof, the tree head
 * this witness cosigned last for that log. A rewritten history (the same size with another root,
 * or a larger tree that does not contain the old one) is refused with 422, forever: the witness
 * never forgets the head it vouched for.
 */
export async function addCheckpoint(
  body: string,
  options: {
    readonly witness: NoteSigner;
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
  const logKey = options.logs.get(checkpoint.origin);
  if (!logKey) return text(404, `unknown log origin: ${checkpoint.origin}`);
  if (openNote(request.note, logKey) === undefined)
    return text(403, 'no valid signature by the log');
  const { old, proof } = request;
  if (old > checkpoint.size) return text(400, 'old size is larger than the checkpoint');
  const latest = await options.state.latest(checkpoint.origin);
  if ((latest?.size ?? 0) !== old) return conflict(latest?.size ?? 0);
  if (checkpoint.size === 0 && !checkpoint.root.equals(EMPTY_ROOT))
    return text(422, 'an empty tree has the empty root');
  if (old === 0 && proof.length > 0) return text(422, 'no proof from the empty tree');
  if (latest && !verifyConsistency(old, checkpoint.size, proof, latest.root, checkpoint.root)) {
    return text(422, `not consistent with the tree head of size ${old} this witness cosigned`);
  }
  const next = { size: checkpoint.size, root: checkpoint.root };
  if (!(await options.state.advance(checkpoint.origin, old, next))) {
    return conflict((await options.state.latest(checkpoint.origin))?.size ?? 0);
  }
  const noteText = parseNote(request.note).text;
  return {
    status: 200,
    contentType: 'text/plain; charset=utf-8',
    body: cosignatureLine(options.witness, noteText, options.nowSeconds()),
  };
}

/** A witness's memory in a Map, for tests and for the file-backed store to build on. */
export function memoryWitnessState(initial: Iterable<[string, TreeHead]> = []): WitnessState & {
  entries(): [string, TreeHead][];
} {
  const heads = new Map(initial);
  return {
    latest: async (origin) => heads.get(origin),
    advance: async (origin, expectedSize, next) => {
      if ((heads.get(origin)?.size ?? 0) !== expectedSize) return false;
      heads.set(origin, next);
      return true;
    },
    entries: () => [...heads],
  };
}
