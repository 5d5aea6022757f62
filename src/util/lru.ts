/**
 * A least-recently-used cache of bounded size (what hashicorp/golang-lru gives upstream's EventRateLimit): `get`
 * marks an entry as just used, adding past the size evicts the entry used longest ago. A Map keeps insertion order,
 * so deleting and re-inserting on use keeps the oldest entry first; that is all an LRU needs, so no package is taken
 * for it.
 */
export class LRUCache<K, V> {
  readonly #size: number;
  readonly #entries = new Map<K, V>();
  /** The most recently used key: using it again needs no reordering (the common case of one busy key). */
  #newest: K | undefined;

  constructor(size: number) {
    if (!Number.isInteger(size) || size <= 0) throw new Error('must provide a positive size');
    this.#size = size;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const v = this.#entries.get(key);
    if (v === undefined || key === this.#newest) return v;
    this.#entries.delete(key);
    this.#entries.set(key, v);
    this.#newest = key;
    return v;
  }

  /** Adds or replaces `key`, then evicts the least recently used entries beyond the size. */
  add(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    while (this.#entries.size > this.#size) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }
}
