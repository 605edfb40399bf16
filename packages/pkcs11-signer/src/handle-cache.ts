/**
 * The token's object handles by kid, at most `maxEntries`, dropping the least recently used: many
 * spaces' keys cost one bounded map in the thread, and the keys in use stay at hand. (The service
 * keeps its own such cache for its keys; a package imports nothing of it.)
 */
export class HandleCache {
  readonly #entries = new Map<string, Buffer>();

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new Error('a bounded cache holds at least one entry');
    }
  }

  /** The handle of `kid`, now the most recently used; undefined when not held. */
  get(kid: string): Buffer | undefined {
    const handle = this.#entries.get(kid);
    if (handle === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting moves the key to the young end.
    this.#entries.delete(kid);
    this.#entries.set(kid, handle);
    return handle;
  }

  /** Holds `handle` for `kid`, dropping the least recently used when full. */
  set(kid: string, handle: Buffer): void {
    this.#entries.delete(kid);
    if (this.#entries.size >= this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(kid, handle);
  }

  delete(kid: string): void {
    this.#entries.delete(kid);
  }
}
