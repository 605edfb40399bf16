/**
 * DPoP proof ids seen by this process until they expire: a proof replayed to this resource
 * server is refused. Bounded: past `maxEntries` the oldest go first (a proof is only accepted
 * within its short iat window anyway). Several processes of one resource server each keep their
 * own; share it (e.g. in Redis) to refuse a replay across them.
 */
export function createReplayCache(maxEntries = 100_000) {
  const seen = new Map<string, number>();
  return {
    /** False when `id` was seen and has not expired: a replay. */
    firstUse(id: string, expiresAtMs: number, nowMs: number): boolean {
      const until = seen.get(id);
      if (until !== undefined && until > nowMs) return false;
      seen.delete(id);
      seen.set(id, expiresAtMs);
      for (const [key, expiry] of seen) {
        if (seen.size <= maxEntries && expiry > nowMs) break;
        seen.delete(key);
      }
      return true;
    },
  };
}
