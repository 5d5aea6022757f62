/**
 * A bounded string pool. JSON.parse gives every event its own copy of values like "Normal" or "kubelet"; keeping one
 * copy per distinct value saves a few hundred bytes per cached event. Once full, new values pass through un-pooled.
 */
export class StringPool {
  readonly #pool = new Map<string, string>();
  constructor(readonly capacity = 100_000) {}

  intern(s: string): string {
    const v = this.#pool.get(s);
    if (v !== undefined) return v;
    if (this.#pool.size < this.capacity) this.#pool.set(s, s);
    return s;
  }

  get size(): number {
    return this.#pool.size;
  }
}

/**
 * A bounded pool of shared immutable values by a string key: many cached objects point at one value instead of
 * each holding its own copy. Once full, new keys get a fresh value each (correct, just not shared).
 */
export class ValuePool<T> {
  readonly #pool = new Map<string, T>();
  constructor(readonly capacity = 100_000) {}

  /** The pooled value for `key`, made by `make` the first time. */
  intern(key: string, make: () => T): T {
    let v = this.#pool.get(key);
    if (v !== undefined) return v;
    v = make();
    if (this.#pool.size < this.capacity) this.#pool.set(key, v);
    return v;
  }

  get size(): number {
    return this.#pool.size;
  }
}
