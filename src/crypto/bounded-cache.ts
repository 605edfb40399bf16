/** A map of at most `maxEntries`, least recently used dropped: keys per signer cost bounded memory. */
export class BoundedCache<Key, Value> {
  readonly #entries = new Map<Key, Value>();

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new Error('a bounded cache holds at least one entry');
    }
  }

  /** The value for `key`, now the most recently used; undefined when not held. */
  get(key: Key): Value | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting moves the key to the young end.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Holds `value` for `key`, dropping the least recently used entry when full. */
  set(key: Key, value: Value): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as Key);
    }
    this.#entries.set(key, value);
  }

  delete(key: Key): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
