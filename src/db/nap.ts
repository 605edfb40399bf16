/** A sleep that {@link Nap.wake} cuts short; waking with nobody asleep does nothing. */
export interface Nap {
  sleep(ms: number): Promise<void>;
  wake(): void;
}

/** A sleep that a NOTIFY or a stop ends at once. */
export function nap(): Nap {
  let wake: (() => void) | undefined;
  return {
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      }),
    wake: () => wake?.(),
  };
}
