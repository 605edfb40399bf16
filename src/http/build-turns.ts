import { BoundedCache } from '../crypto/bounded-cache.js';
import { UnavailableError } from '../errors/errors.js';

/** How builds share a process: how many wait, how much of its time they take, how long a caller waits. */
export interface BuildTurnsOptions {
  /** Builds queued or running, in all. */
  readonly maxWaiting: number;
  /** Builds queued or running for one space: one tenant's lists cannot fill the queue. */
  readonly maxWaitingPerSpace: number;
  /** The part of the process's time one space's builds may take (0 < share ≤ 1): a rest after each. */
  readonly share: number;
  /** A caller is answered 503 past this; its build still runs and its result is kept. */
  readonly maxWaitMs: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

interface Job<T> {
  readonly spaceId: string;
  readonly key: string;
  readonly build: () => Promise<T>;
  readonly settle: (outcome: Promise<T>) => void;
}

const MAX_UNENDED = 4;

const busy = (message: string) => new UnavailableError(message, { retryAfterSeconds: 2 });

/**
 * Expensive builds (a status list judged entry by entry) one at a time, spaces taking turns, and
 * each space resting after its build so its builds take at most `share` of the process's time:
 * a flood of one space's lists slows that space's lists down (stale copies, then 503), never
 * another space's, and never the tokens issued beside them. A flood over many spaces' lists
 * keeps the one build at a time busy, which yields to requests every 1,000 entries.
 */
export class BuildTurns<T> {
  readonly #waiting = new Map<string, Job<T>[]>();
  readonly #byKey = new Map<string, Promise<T>>();
  readonly #perSpace = new Map<string, number>();
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  // When each space with a build queued or running last had a turn: at most maxWaiting entries.
  readonly #lastTurn = new Map<string, number>();
  // Until when each space rests after its last build; outlives its queue (a space that asks
  // again at once still rests), bounded.
  readonly #restUntil = new BoundedCache<string, number>(10_000);
  #turns = 0;
  #running = false;
  // Builds begun and not yet ended, those let go at the wait bound included: a stalled database
  // gets no more than this many at once from here.
  #unended = 0;
  // Cuts a rest short when a build is asked for: another space's may go at once.
  #wake: (() => void) | undefined;

  constructor(readonly options: BuildTurnsOptions) {
    if (!(options.share > 0 && options.share <= 1)) throw new Error('share is in (0, 1]');
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? sleepUnref;
  }

  /** `build`'s result for `key`, shared with every caller asking for `key` meanwhile. */
  run(spaceId: string, key: string, build: () => Promise<T>): Promise<T> {
    let pending = this.#byKey.get(key);
    if (!pending) {
      if (this.#byKey.size >= this.options.maxWaiting) {
        return Promise.reject(busy('status lists are being built; retry shortly'));
      }
      if ((this.#perSpace.get(spaceId) ?? 0) >= this.options.maxWaitingPerSpace) {
        return Promise.reject(busy("this space's status lists are being built; retry shortly"));
      }
      if (this.#unended >= MAX_UNENDED) {
        return Promise.reject(busy('status list builds are stalled; retry shortly'));
      }
      pending = new Promise<T>((resolve) => {
        const job = { spaceId, key, build, settle: resolve };
        this.#waiting.set(spaceId, [...(this.#waiting.get(spaceId) ?? []), job]);
      });
      pending.catch(() => undefined);
      this.#byKey.set(key, pending);
      this.#perSpace.set(spaceId, (this.#perSpace.get(spaceId) ?? 0) + 1);
      this.#wake?.();
      void this.#drain();
    }
    return withinMs(pending, this.options.maxWaitMs);
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (;;) {
        const next = this.#next();
        if (next === undefined) break;
        if (typeof next === 'number') {
          await Promise.race([
            this.#sleep(next),
            new Promise<void>((resolve) => (this.#wake = resolve)),
          ]);
          this.#wake = undefined;
          continue;
        }
        const job = next;
        const started = this.#now();
        this.#unended += 1;
        const outcome = (async () => job.build())();
        void outcome.catch(() => undefined).finally(() => (this.#unended -= 1));
        job.settle(outcome);
        let released = false;
        const release = () => {
          if (!released) this.#done(job);
          released = true;
        };
        void outcome.catch(() => undefined).finally(release);
        // A build stalled (a database that stopped answering) holds its turn, its place in the
        // caps and its space's account no longer than a caller waits: then the list may be
        // asked for again, and another space's go.
        await withinMs(outcome, this.options.maxWaitMs).catch(release);
        const took = Math.min(this.#now() - started, this.options.maxWaitMs);
        this.#restUntil.set(job.spaceId, this.#now() + took * (1 / this.options.share - 1));
      }
    } finally {
      this.#running = false;
    }
  }

  /**
   * The next job: of the spaces not resting, the one whose last turn is oldest (one never
   * served first, then by arrival); or how long until one stops resting; or none waiting.
   */
  #next(): Job<T> | number | undefined {
    const now = this.#now();
    let chosen: string | undefined;
    let soonest = Infinity;
    for (const spaceId of this.#waiting.keys()) {
      const rest = (this.#restUntil.get(spaceId) ?? 0) - now;
      if (rest > 0) {
        soonest = Math.min(soonest, rest);
        continue;
      }
      const turn = this.#lastTurn.get(spaceId) ?? -1;
      if (chosen === undefined || turn < (this.#lastTurn.get(chosen) ?? -1)) chosen = spaceId;
    }
    if (chosen === undefined) return soonest === Infinity ? undefined : soonest;
    const [job, ...rest] = this.#waiting.get(chosen)!;
    if (rest.length > 0) this.#waiting.set(chosen, rest);
    else this.#waiting.delete(chosen);
    this.#lastTurn.set(chosen, (this.#turns += 1));
    return job;
  }

  #done(job: Job<T>): void {
    this.#byKey.delete(job.key);
    const left = (this.#perSpace.get(job.spaceId) ?? 1) - 1;
    if (left > 0) this.#perSpace.set(job.spaceId, left);
    else {
      this.#perSpace.delete(job.spaceId);
      this.#lastTurn.delete(job.spaceId);
    }
  }
}

function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(busy('the status list is still being built; retry')), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const sleepUnref = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
