// Node's own binding, not the global: a test's fake timers patch the global (and `timers`'s
// CommonJS export), and would hold every piece of work back.
import { setImmediate } from 'node:timers';

let asked: (() => void)[] = [];

/**
 * Does `work` with the rest asked in the same turn of the loop, in a row at its next check phase
 * (for a request, once the ready sockets are read). Native crypto between a request's other steps
 * evicted their code and data from the caches and they its own: measured in place, a signature
 * cost two to four times its time alone (docs/performance.md, "A turn's signatures in a row").
 */
export function inTurn<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (asked.length === 0) setImmediate(doTurn);
    asked.push(() => {
      try {
        resolve(work());
      } catch (error) {
        reject(error);
      }
    });
  });
}

// Swapped out first: work asked from within the turn lands in the next one.
function doTurn(): void {
  const turn = asked;
  asked = [];
  for (const each of turn) each();
}
