/** The answer of a budget check: allowed with what is left, or over budget and when to retry. */
export type BudgetDecision =
  | { readonly allowed: true; readonly remaining: number; readonly resetSeconds: number }
  | { readonly allowed: false; readonly retryAfterSeconds: number; readonly resetSeconds: number };

interface Window {
  /** Counts per one-second slot, a ring of `slots` entries. */
  readonly counts: Uint32Array;
  /** The second (since the epoch) the newest slot stands for. */
  head: number;
  total: number;
}

/**
 * Budgets per key over a sliding minute: 60 one-second slots per key, so a key can never spend
 * more than its limit within any 60 s (to the second), with no burst at a window's edge as fixed
 * windows allow. Memory is bounded: at most `maxKeys` keys, the least recently used forgotten
 * first (forgetting only ever errs towards allowing).
 */
export class SlidingWindowBudgets {
  readonly #slots: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();

  constructor(options: {
    readonly maxKeys: number;
    readonly now?: () => number;
    readonly windowSeconds?: number;
  }) {
    this.#slots = options.windowSeconds ?? 60;
    this.#maxKeys = options.maxKeys;
    this.#now = options.now ?? Date.now;
  }

  /** Keys held now (for /metrics). */
  get size(): number {
    return this.#windows.size;
  }

  /** Spends one unit of `key`'s budget of `limit` per window if there is one left. */
  take(key: string, limit: number): BudgetDecision {
    const decision = this.peek(key, limit);
    if (decision.allowed) {
      // peek has just made the key the most recent and advanced its window: only count.
      const window = this.#windows.get(key);
      if (window) this.#count(window, 1);
      else this.add(key, 1);
    }
    return decision.allowed ? { ...decision, remaining: decision.remaining - 1 } : decision;
  }

  /** Whether `key` has budget left, without spending it. */
  peek(key: string, limit: number): BudgetDecision {
    const second = Math.floor(this.#now() / 1000);
    const window = this.#windows.get(key);
    if (!window) return { allowed: true, remaining: limit, resetSeconds: 0 };
    // Any check is a use: a key being refused stays remembered rather than being evicted first.
    this.#windows.delete(key);
    this.#windows.set(key, window);
    this.#advance(window, second);
    if (window.total < limit) {
      // Until the budget is whole again: every unit spent has left the window.
      const resetSeconds = window.total === 0 ? 0 : this.#untilEmpty(window);
      return { allowed: true, remaining: limit - window.total, resetSeconds };
    }
    const wait = this.#untilBelow(window, limit);
    return { allowed: false, retryAfterSeconds: wait, resetSeconds: wait };
  }

  /** Counts `amount` units against `key` now. */
  add(key: string, amount: number): void {
    const second = Math.floor(this.#now() / 1000);
    let window = this.#windows.get(key);
    if (window) {
      this.#windows.delete(key); // re-insert: the Map's order is least recently used first
    } else {
      if (this.#windows.size >= this.#maxKeys) {
        this.#windows.delete(this.#windows.keys().next().value!);
      }
      window = { counts: new Uint32Array(this.#slots), head: second, total: 0 };
    }
    this.#windows.set(key, window);
    this.#advance(window, second);
    this.#count(window, amount);
  }

  /** Adds `amount` to the window's current slot (the window is advanced to now). */
  #count(window: Window, amount: number): void {
    window.counts[window.head % this.#slots]! += amount;
    window.total += amount;
  }

  /** Drops slots older than the window. */
  #advance(window: Window, second: number): void {
    const gap = second - window.head;
    if (gap <= 0) return;
    if (gap >= this.#slots) {
      window.counts.fill(0);
      window.total = 0;
    } else {
      for (let s = window.head + 1; s <= second; s++) {
        const slot = s % this.#slots;
        window.total -= window.counts[slot]!;
        window.counts[slot] = 0;
      }
    }
    window.head = second;
  }

  /**
   * Whole seconds until every unit counted has left the window (at least 1): until its newest
   * non-empty slot does. Searched from the newest, which under load is the current second: one
   * look per request, where `#untilBelow(window, 1)` walked all the window's slots.
   */
  #untilEmpty(window: Window): number {
    for (let age = 0; age < this.#slots; age++) {
      const slot = (((window.head - age) % this.#slots) + this.#slots) % this.#slots;
      if (window.counts[slot]! > 0) return Math.max(1, this.#slots - age);
    }
    return this.#slots;
  }

  /** Whole seconds until the window's total drops below `limit` (at least 1). */
  #untilBelow(window: Window, limit: number): number {
    let total = window.total;
    for (let age = this.#slots - 1; age >= 0; age--) {
      if (total < limit) return Math.max(1, this.#slots - 1 - age);
      const slot = (((window.head - age) % this.#slots) + this.#slots) % this.#slots;
      total -= window.counts[slot]!;
    }
    return this.#slots;
  }
}
