/** What {@link ReplayCache.firstUse} says of a proof id. */
export type ReplayVerdict = 'first' | 'replay' | 'full';

/** DPoP proof ids this process has seen, each kept until its proof can no longer be accepted. */
export interface ReplayCache {
  /**
   * `first` (now remembered), `replay` (seen and still acceptable), or `full`: every slot holds a
   * proof still acceptable, and forgetting one would let it be replayed, so the caller refuses.
   */
  firstUse(id: string, expiresAtMs: number, nowMs: number): ReplayVerdict;
  size(): number;
}

// Kept past a proof's acceptance, for clocks a little apart (several processes sharing a
// verdict, a clock stepped back).
const CLOCK_SKEW_MS = 5_000;

/**
 * DPoP proof ids seen by this process until their proof's acceptance window has passed (plus
 * the clock skew): a proof replayed to this resource server is refused. Bounded, and closed when
 * full: past `maxEntries` unexpired ids it answers `full` rather than forget one early. Several
 * processes of one resource server each keep their own; share it (e.g. in Redis) to refuse a
 * replay across them.
 */
export function createReplayCache(maxEntries = 100_000): ReplayCache {
  const seen = new Map<string, number>();
  let sweptAtMs = -Infinity;
  // Oldest first: insertion order is close to expiry order, the window being the same for all.
  const sweep = (nowMs: number, everything: boolean) => {
    for (const [key, until] of seen) {
      if (until > nowMs) {
        if (everything) continue;
        return;
      }
      seen.delete(key);
    }
  };
  return {
    firstUse(id, expiresAtMs, nowMs) {
      const until = seen.get(id);
      if (until !== undefined && until > nowMs) return 'replay';
      seen.delete(id);
      sweep(nowMs, false);
      // A full sweep at most once a second, so a flood of proofs while full costs no more.
      if (seen.size >= maxEntries && nowMs - sweptAtMs >= 1000) {
        sweptAtMs = nowMs;
        sweep(nowMs, true);
      }
      if (seen.size >= maxEntries) return 'full';
      seen.set(id, expiresAtMs + CLOCK_SKEW_MS);
      return 'first';
    },
    size: () => seen.size,
  };
}
