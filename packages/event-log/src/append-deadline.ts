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
