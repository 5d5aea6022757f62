/**
 * upstream's LRUExpireCache for webhook decisions: at most `capacity` entries, each with its own expiry; a read of
 * an expired entry removes it, and adding past capacity drops the least recently used one. A TTL of 0 or less
 * stores nothing (a disabled cache side).
 */
export class LRUExpireCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  readonly #capacity: number;
  readonly #now: () => number;

  constructor(capacity: number, now: () => number = Date.now) {
    this.#capacity = capacity;
    this.#now = now;
  }

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    if (e.expires <= this.#now()) return undefined;
    // Re-inserting makes it the most recently used (Map keeps insertion order).
    this.#entries.set(key, e);
    return e.value;
  }

  add(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.#now() + ttlMs });
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get size(): number {
    return this.#entries.size;
  }
}
