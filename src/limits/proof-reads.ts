import { SlidingWindowBudgets } from '#rate-limit/sliding-window.js';
import { overBudget } from './limits.js';

/**
 * Each user's budget of audit proof reads (tree heads, inclusion and consistency proofs) in this
 * process: every one reads the database and appends an audit read, so one auditor looping over
 * event ids must not take the pool every tenant's token requests share.
 */
export interface ProofReadBudget {
  /** Spends one read of `user`'s budget (`issuer|subject`), or throws RateLimitedError (429). */
  take(user: string): void;
  /** Users remembered now (for /metrics). */
  size(): number;
}

/** A {@link ProofReadBudget} of `perMinute` reads per user over a sliding minute. */
export function createProofReadBudget(settings: {
  /** AUDIT_PROOF_READS_PER_MINUTE. */
  readonly perMinute: number;
  /** Users remembered at most (LIMITER_MAX_KEYS); the least recently seen forgotten first. */
  readonly maxKeys: number;
  readonly now?: () => number;
}): ProofReadBudget {
  const budgets = new SlidingWindowBudgets({ maxKeys: settings.maxKeys, now: settings.now });
  return {
    take(user) {
      const decision = budgets.take(user, settings.perMinute);
      if (decision.allowed) return;
      const message = 'this user has used its budget of audit proof reads; retry later';
      throw overBudget(message, 'audit-proofs', settings.perMinute, decision);
    },
    size: () => budgets.size,
  };
}
