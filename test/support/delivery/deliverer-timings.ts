/**
 * The deliverer's bounds as tests run it: small batches, fast retries and reloads, so a test sees
 * a delivery, a retry or a sink change within a second.
 */
export const TEST_DELIVERER_TIMINGS = {
  batchSize: 50,
  maxAttempts: 100,
  timeoutMs: 2000,
  backoff: { baseMs: 20, maxMs: 100 },
  probeMs: 100,
  pollMs: 50,
  lingerMs: 0,
  reloadMs: 100,
  leaseMs: 5000,
  standbyRetryMs: 200,
} as const;
