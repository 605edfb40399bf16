import { AsyncLocalStorage } from 'node:async_hooks';
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

const current = new AsyncLocalStorage<AppendDeadline>();

/** Runs a request's handling with its deadline, where its writes find it. */
export const withDeadline = <T>(deadline: AppendDeadline, work: () => T): T =>
  current.run(deadline, work);

/** The deadline of the request being handled, if any (the event store's `deadlineOf`). */
export const currentDeadline = (): AppendDeadline | undefined => current.getStore();

/** Runs `work` as no request's (a summary of many, a background task started by one). */
export const outsideDeadline = <T>(work: () => T): T => current.exit(work);
