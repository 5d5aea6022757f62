/**
 * Walking the watch cache's ordered map for lists and initial watch state: cursors that resume after the last key
 * taken (streamed lists), and the key-range helpers of a resource prefix.
 */
import { type BTree, countBelow, countRangeOf, keyAt } from './btree.ts';
import type { CacheEntry, Predicate } from './types.ts';

type Tree = BTree<string, CacheEntry>;

/** A consistent, unpaged list from the cache (WatchCache.listView). */
export interface CacheListView {
  rv: number;
  /** A fresh walk over the whole view, from its first entry. */
  cursor(): CacheCursor;
}

/** One page of a paginated list from the cache (WatchCache.pageView), to be walked like a whole list. */
export interface CachePageView extends CacheListView {
  /** Whether entries follow the page in its range. */
  more: boolean;
  /** The page's last key when `more` (the continue token starts after it). */
  lastKey?: string;
  /** Entries in the range after the page. */
  remaining: number;
}

export interface CacheCursor {
  /**
   * Passes the next matching entries to `visit` in key order until `visit` returns false (that entry counts as
   * taken) or none are left. Returns whether entries may remain.
   */
  next(visit: (entry: CacheEntry) => boolean): boolean;
}

/** Walks a key range of a snapshot; each `next` resumes with one O(log n) descent after the last key taken. */
export class RangeCursor implements CacheCursor {
  #from: string;
  #done = false;

  constructor(
    readonly tree: Tree,
    from: string,
    readonly end: string,
    readonly pred: Predicate,
  ) {
    this.#from = from;
  }

  next(visit: (entry: CacheEntry) => boolean): boolean {
    if (this.#done) return false;
    const pred = this.pred;
    let last: string | undefined;
    this.tree.forRange(this.#from, this.end, false, (key, entry) => {
      if (!pred.everything && !pred.matches(entry.attrs)) return;
      if (visit(entry)) return;
      last = key;
      return { break: true };
    });
    if (last === undefined) {
      this.#done = true;
      return false;
    }
    this.#from = last + '\0';
    return true;
  }
}

/** Walks the sorted keys an index gave, looking each up in the snapshot. */
export class KeysCursor implements CacheCursor {
  #i = 0;

  constructor(
    readonly tree: Tree,
    readonly keys: string[],
    readonly from: string,
    readonly prefix: string,
    readonly pred: Predicate,
  ) {}

  next(visit: (entry: CacheEntry) => boolean): boolean {
    const { keys, tree, pred } = this;
    while (this.#i < keys.length) {
      const key = keys[this.#i++]!;
      if (key < this.from || !key.startsWith(this.prefix)) continue;
      const entry = tree.get(key);
      if (!entry || !pred.matches(entry.attrs)) continue;
      if (!visit(entry)) return this.#i < keys.length;
    }
    return false;
  }
}

export function* filtered(tree: Tree, prefix: string, pred: Predicate): Generator<CacheEntry> {
  for (const [key, entry] of tree.entries(prefix)) {
    if (!key.startsWith(prefix)) return;
    if (pred.everything || pred.matches(entry.attrs)) yield entry;
  }
}

/**
 * Where a page of at most `limit` entries of [from, end) ends, unfiltered, from ranks in O(log n): the exclusive
 * end key to walk to, whether entries follow, the last key of the page and how many follow.
 */
export function pageBounds(tree: Tree, from: string, end: string, limit: number): { end: string; more: boolean; lastKey?: string; remaining: number } {
  const first = countBelow(tree, from);
  const n = end > from ? countBelow(tree, end) - first : 0;
  if (n <= limit) return { end, more: false, remaining: 0 };
  const lastKey = keyAt(tree, first + limit - 1)!;
  // lastKey + '\0' is the next string after lastKey: the walk stops right after it.
  return { end: lastKey + '\0', more: true, lastKey, remaining: n - limit };
}

/** The first key above every key under `prefix` (prefixes end in '/': bump that last character). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * Keys in [from, end of prefix range), in O(log n): a paginated list reports this on every page
 * (remainingItemCount), and walking the rest each time made a walk of n items cost O(n²/limit).
 */
export function countRange(tree: Tree, from: string, prefix: string): number {
  return countRangeOf(tree, from, prefixEnd(prefix));
}
