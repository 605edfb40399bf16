import { AppendRefusedError } from './errors.js';

/**
 * The deadline of the request an append serves (a caller told "no" once it passed). Past it with
 * nothing written, nothing is written for it; once a write began, the request is its caller's to
 * answer with what was written, however late.
 */
export interface AppendDeadline {
  /** Whether a write may start now: false past the deadline, unless the request already wrote. */
  begin(): boolean;
  /** The write begun ended; `written` when it committed. */
  end(written: boolean): void;
}

/** Runs `write` under `deadline` (none: at once); refused `deadline_passed` when it has passed. */
export async function withinDeadline<T>(
  deadline: AppendDeadline | undefined,
  write: () => Promise<T>,
  wrote: (result: T) => boolean = () => true,
): Promise<T> {
  if (!deadline) return write();
  if (!deadline.begin()) throw new AppendRefusedError('deadline_passed');
  let written = false;
  try {
    const result = await write();
    written = wrote(result);
    return result;
  } finally {
    deadline.end(written);
  }
}

/**
 * A request's deadline as its writes see it: passed with nothing written, `refuse` tells the
 * caller no at once and nothing is written after; passed during a write, the answer waits for
 * it, and once one committed the caller gets what was recorded, however late.
 */
export class RequestDeadline implements AppendDeadline {
  #passed = false;
  #writing = 0;
  #written = false;
  constructor(private readonly refuse: () => void) {}

  pass(): void {
    this.#passed = true;
    this.#settle();
  }

  begin(): boolean {
    if (this.#passed && !this.#written) return false;
    this.#writing += 1;
    return true;
  }

  end(written: boolean): void {
    this.#writing -= 1;
    this.#written ||= written;
    this.#settle();
  }

  #settle(): void {
    if (this.#passed && !this.#written && this.#writing === 0) this.refuse();
  }
}

// Found by request id, not AsyncLocalStorage: on Node 20 and 22 that puts a hook on every promise
// of the process (8 % of issuance throughput, docs/performance.md). Ids are ours (UUIDv7), never
// a caller's, so no request can name another's deadline.
const byRequest = new Map<string, AppendDeadline>();

/**
 * Runs a request's handling with its deadline: until the handling settles (not the answer: a
 * handler still running past it must still be refused), the writes naming `requestId` find it.
 * A write the handling starts and does not await finds none once it settled: await every write.
 */
export function withDeadline<T>(
  requestId: string,
  deadline: AppendDeadline,
  work: () => Promise<T>,
): Promise<T> {
  byRequest.set(requestId, deadline);
  const release = () => void (byRequest.get(requestId) === deadline && byRequest.delete(requestId));
  let handling: Promise<T>;
  try {
    handling = work();
  } catch (error) {
    release();
    throw error;
  }
  handling.then(release, release);
  return handling;
}

/** The deadline of the request named (its events' request id), if it is being handled. */
export const deadlineOf = (requestId: string | undefined): AppendDeadline | undefined =>
  requestId === undefined ? undefined : byRequest.get(requestId);

/** Requests being handled: what a test looks at to see none is kept after its handling. */
export const deadlinesHeld = (): number => byRequest.size;
