// Not the global: a test's fake timers would hold every piece of work back.
import { setImmediate } from 'node:timers';

type Asked = [
  work: () => unknown,
  resolve: (value: unknown) => void,
  reject: (error: unknown) => void,
];
let asked: Asked[] = [];

/**
 * Does `work` with the rest asked in the same turn of the loop, in a row once its ready sockets
 * are read (one loop phase later). Native crypto between a request's other steps evicted their
 * code and data from the caches and they its own: measured in place, a signature cost two to four
 * times its time alone (docs/performance.md, "A turn's signatures in a row").
 */
export function inTurn<T>(work: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (asked.length === 0) setImmediate(doTurn);
    asked.push([work, resolve as (value: unknown) => void, reject]);
  });
}

function doTurn(): void {
  const turn = asked;
  asked = [];
  for (const [work, resolve, reject] of turn) {
    try {
      resolve(work());
    } catch (error) {
      reject(error);
    }
  }
}
