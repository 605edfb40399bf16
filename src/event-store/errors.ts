/** Why the store refused an append it never wrote. */
export type AppendRefusal = 'queue_full' | 'wait_expired' | 'no_partition';

const MESSAGE: Readonly<Record<AppendRefusal, string>> = {
  queue_full: 'too many writes waiting for the event log',
  wait_expired: 'the event log did not take the write in time',
  // Partition maintenance is behind (every service process makes them ahead, every 10 s): a 503
  // that ends by itself as soon as one of them makes the partition, never a 500.
  no_partition: 'the event log has no partition for this time yet',
};

/**
 * The store refused an append before writing it: its queue was full, the append waited past its
 * bound behind a stalled batch, or no partition of the log covers now. Nothing was written; the
 * same append may be retried. The HTTP edge answers it as 503 with Retry-After
 * (src/http/error-response.ts).
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
