/**
 * Which keys may exist: a Bloom filter over the live keys, so that a create of a new key (nearly every create)
 * skips the SQLite existence lookup, a quarter of the backend's CPU per create. A "maybe" still asks SQLite, so
 * answers stay exact; deleted keys simply stay in the filter until the next rebuild. Hand-written: no Bloom filter
 * package is installed, and this one needs an incremental rebuild that walks the `current` table in pages.
 */

/** 16 bits and 4 probes per key: about 0.25 % of new keys still need the lookup. */
const BITS_PER_KEY = 16;
const PROBES = 4;
const MIN_KEYS = 1 << 16;
/** Keys read per event-loop turn while rebuilding. */
const REBUILD_PAGE = 5000;

/** A fixed-size Bloom filter of strings. */
export class BloomFilter {
  readonly capacity: number;
  /** Keys added so far (repeats included). */
  count = 0;
  readonly #words: Int32Array;
  readonly #mask: number;

  constructor(capacity: number, minKeys = MIN_KEYS) {
    this.capacity = Math.max(minKeys, capacity);
    let bits = 1024;
    while (bits < this.capacity * BITS_PER_KEY) bits *= 2;
    this.#words = new Int32Array(bits >>> 5);
    this.#mask = bits - 1;
  }

  add(key: string): void {
    this.count++;
    const [h1, h2] = hash2(key);
    for (let i = 0; i < PROBES; i++) {
      const b = (h1 + Math.imul(i, h2)) & this.#mask;
      this.#words[b >>> 5]! |= 1 << (b & 31);
    }
  }

  /** False: `key` was never added. True: it may have been. */
  mayHave(key: string): boolean {
    const [h1, h2] = hash2(key);
    for (let i = 0; i < PROBES; i++) {
      const b = (h1 + Math.imul(i, h2)) & this.#mask;
      if ((this.#words[b >>> 5]! & (1 << (b & 31))) === 0) return false;
    }
    return true;
  }
}

const pair: [number, number] = [0, 0];

// FNV-1a and a multiplicative hash in one pass (double hashing needs two independent 32-bit hashes); h2 is forced
// odd so the probes of one key never coincide. The returned pair is reused: read it before hashing again.
function hash2(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  pair[0] = a >>> 0;
  pair[1] = (b | 1) >>> 0;
  return pair;
}

/** Reads up to `limit` keys of the live set greater than `after`, in key order. */
export type KeyPager = (after: string, limit: number) => string[];

/**
 * The live-key filter of one store. `noteAdded`/`noteDeleted` follow every committed write; when the filter holds
 * more keys than it was sized for (deleted ones linger), a bigger one is rebuilt from the live keys a page per
 * event-loop turn, receiving every key committed meanwhile, and replaces the old one when complete.
 */
export class LiveKeyFilter {
  #filter: BloomFilter;
  #live: number;
  #next: BloomFilter | undefined;
  readonly #pager: KeyPager;
  readonly #page: number;
  readonly #minKeys: number;
  #stopped = false;

  /** `live` is the number of live keys; the initial filter is filled synchronously from `pager`. */
  constructor(pager: KeyPager, live: number, opts: { page?: number; minKeys?: number } = {}) {
    this.#pager = pager;
    this.#live = live;
    this.#page = opts.page ?? REBUILD_PAGE;
    this.#minKeys = opts.minKeys ?? MIN_KEYS;
    this.#filter = new BloomFilter(2 * live, this.#minKeys);
    for (let after = '', page = pager(after, this.#page); page.length > 0; page = pager(after, this.#page)) {
      for (const k of page) this.#filter.add(k);
      after = page[page.length - 1]!;
    }
  }

  /** False: no live key `key` (committed); true: ask the database. */
  mayHave(key: string): boolean {
    return this.#filter.mayHave(key);
  }

  get rebuilding(): boolean {
    return this.#next !== undefined;
  }

  noteAdded(key: string): void {
    this.#live++;
    this.#filter.add(key);
    this.#next?.add(key);
    if (this.#filter.count > this.#filter.capacity && this.#next === undefined) this.#rebuild();
  }

  noteDeleted(): void {
    this.#live--;
  }

  stop(): void {
    this.#stopped = true;
  }

  #rebuild(): void {
    const next = new BloomFilter(2 * this.#live, this.#minKeys);
    this.#next = next;
    let after = '';
    const step = (): void => {
      if (this.#stopped) return;
      const page = this.#pager(after, this.#page);
      for (const k of page) next.add(k);
      if (page.length === this.#page) {
        after = page[page.length - 1]!;
        setImmediate(step);
        return;
      }
      this.#filter = next;
      this.#next = undefined;
    };
    setImmediate(step);
  }
}
