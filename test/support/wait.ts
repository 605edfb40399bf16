/**
 * Polls `probe` until `accept` holds for its value, and returns that value; throws with the last
 * value seen after `timeoutMs`. Tests wait on the condition they mean, never a fixed time.
 */
export async function waitUntil<T>(
  probe: () => Promise<T> | T,
  accept: (value: T) => boolean = Boolean,
  { timeoutMs = 10_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > until) {
      throw new Error(`condition not met within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
