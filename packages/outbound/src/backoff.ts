/** Retry timing of a failing sink. */
export interface Backoff {
  /** The first retry's delay before jitter. */
  readonly baseMs: number;
  /** No wait grows past this. */
  readonly maxMs: number;
}

/**
 * The wait before retry `attempt` (1 = after the first failure): exponential, capped, with "equal
 * jitter" (half fixed, half random) so sinks that failed together do not retry in step.
 */
export function retryDelayMs(backoff: Backoff, attempt: number, random = Math.random): number {
  const exponential = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}
