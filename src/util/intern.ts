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
