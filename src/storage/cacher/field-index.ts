/**
 * One field's index in the watch cache: value → keys of the current objects with that value.
 *
 * Most values are carried by few objects (events about one pod), so the keys of a value are kept in the cheapest
 * form for their number: the key itself, then a sorted array (lists want keys in order anyway, so the common small
 * case needs no sort per list), and a Set once inserting into the array would move too much memory.
 * A small Set costs ~35 bytes per key; the array ~10.
 */

/** Above this many keys a value's keys move from a sorted array to a Set. */
const ARRAY_MAX = 1024;

type Keys = string | string[] | Set<string>;

export class FieldIndex {
  readonly #byValue = new Map<string, Keys>();

  add(value: string, key: string): void {
    const keys = this.#byValue.get(value);
    if (keys === undefined) this.#byValue.set(value, key);
    else if (typeof keys === 'string') {
      if (keys !== key) this.#byValue.set(value, keys < key ? [keys, key] : [key, keys]);
    } else if (Array.isArray(keys)) {
      const i = lowerBound(keys, key);
      if (keys[i] === key) return;
      if (keys.length < ARRAY_MAX) keys.splice(i, 0, key);
      else this.#byValue.set(value, new Set(keys).add(key));
    } else keys.add(key);
  }

  delete(value: string, key: string): void {
    const keys = this.#byValue.get(value);
    if (keys === undefined) return;
    if (typeof keys === 'string') {
      if (keys === key) this.#byValue.delete(value);
    } else if (Array.isArray(keys)) {
      const i = lowerBound(keys, key);
      if (keys[i] !== key) return;
      keys.splice(i, 1);
      if (keys.length === 1) this.#byValue.set(value, keys[0]!);
    } else {
      keys.delete(key);
      if (keys.size === 0) this.#byValue.delete(value);
    }
  }

  /** How many current objects have `value`. */
  count(value: string): number {
    const keys = this.#byValue.get(value);
    if (keys === undefined) return 0;
    if (typeof keys === 'string') return 1;
    return Array.isArray(keys) ? keys.length : keys.size;
  }

  /** The keys of the objects with `value`, sorted, in a new array the caller may keep. */
  sortedKeys(value: string): string[] {
    const keys = this.#byValue.get(value);
    if (keys === undefined) return [];
    if (typeof keys === 'string') return [keys];
    return Array.isArray(keys) ? keys.slice() : [...keys].sort();
  }

  clear(): void {
    this.#byValue.clear();
  }
}

/** The first position in sorted `xs` whose element is >= `x`. */
function lowerBound(xs: readonly string[], x: string): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
