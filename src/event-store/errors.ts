/**
 * The store refused an append before writing it: its queue was full, or the append waited past
 * its bound behind a stalled batch. Nothing was written; the same append may be retried. The HTTP
 * edge answers it as 503 with Retry-After (src/http/error-response.ts).
 */
export class AppendRefusedError extends Error {
  constructor(readonly reason: 'queue_full' | 'wait_expired') {
    super(
      reason === 'queue_full'
        ? 'too many writes waiting for the event log'
        : 'the event log did not take the write in time',
    );
    this.name = 'AppendRefusedError';
  }
}
