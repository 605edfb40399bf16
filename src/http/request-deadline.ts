import { AsyncLocalStorage } from 'node:async_hooks';
import type { AppendDeadline } from '#event-log/append-deadline.js';

/**
 * A request's deadline as its writes see it. Passed with nothing written, the caller is told no
 * (503) and nothing is written after; passed during a write, the answer waits for the write, and
 * once one committed the caller gets what was recorded, however late.
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

const current = new AsyncLocalStorage<RequestDeadline>();

/** Runs a request's handling with its deadline, where its writes find it. */
export const withRequestDeadline = <T>(deadline: RequestDeadline, work: () => T): T =>
  current.run(deadline, work);

/** The deadline of the request being handled, if any (the event store's `deadlineOf`). */
export const currentDeadline = (): RequestDeadline | undefined => current.getStore();
