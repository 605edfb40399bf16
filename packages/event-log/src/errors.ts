/** Why the store refused an append it never wrote. */
export type AppendRefusal = 'queue_full' | 'wait_expired' | 'no_partition' | 'deadline_passed';

const MESSAGE: Readonly<Record<AppendRefusal, string>> = {
  queue_full: 'too many writes waiting for the event log',
  wait_expired: 'the event log did not take the write in time',
  deadline_passed: 'the request was answered (past its deadline) before the write began',
  // Partition maintenance is behind (keepPartitionsAhead makes them ahead, every 10 s): a refusal
  // that ends by itself as soon as a partition is made, never a failure of the service.
  no_partition: 'the event log has no partition for this time yet',
};

/**
 * The store refused an append before writing it: its queue was full, the append waited past its
 * bound behind a stalled batch, or no partition of the log covers now. Nothing was written; the
 * same append may be retried (token-authority answers it as 503 with Retry-After).
 */
export class AppendRefusedError extends Error {
  constructor(
    readonly reason: AppendRefusal,
    options?: { readonly cause?: unknown },
  ) {
    super(MESSAGE[reason], options);
    this.name = 'AppendRefusedError';
  }
}

/**
 * True for a row no partition of its table covers ("no partition of relation … found for row",
 * a check violation, SQLSTATE 23514): for the log, partition maintenance has fallen behind.
 */
export function isMissingPartition(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === '23514' &&
    typeof message === 'string' &&
    message.startsWith('no partition of relation')
  );
}
