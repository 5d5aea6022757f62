/**
 * The watch cache's state (upstream `watch_cache.go`): every object of one resource in memory, fed by ONE storage
 * watch. Which reads it serves and which go to storage is decided by the Cacher (./cacher.ts) in front of it.
 *
 * - Lists are served from an ordered map (sorted-btree). Paginated lists keep a copy-on-write clone of the map at
 *   their revision, so every page of one list comes from the same snapshot.
 * - Watches fan out from here: each change is decoded once, its selector attributes extracted once, and its watch
 *   frame bytes built once for all watchers (CacheEvent.frame).
 * - Recent changes are kept in a ring so a watch can resume from a recent resourceVersion without storage; older
 *   resumes are served by a storage watch of their own (SQLite replays its revision log).
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { newTooLargeResourceVersion } from '../../apimachinery/errors.ts';
import type { Codec, Storage, StorageEvent, Watch } from '../interface.ts';
import { CorruptObjectsError, StorageError } from '../interface.ts';
import { ValueArena } from './arena.ts';
import { BTree } from './btree.ts';
import { FieldIndex } from './field-index.ts';
import { type CacheCursor, type CacheListView, type CachePageView, KeysCursor, RangeCursor, countRange, filtered, pageBounds, prefixEnd } from './list-cursor.ts';
import { ResourceCacheMetrics } from './metrics.ts';
import { CacheEvent, Entry, type CacheEntry, type ObjectAttrs, type Predicate, type WatchEventType } from './types.ts';

export interface WatchCacheOptions {
  storage: Storage;
  /** Key prefix of the resource, ending in `/`. */
  prefix: string;
  codec: Codec;
  attrs(obj: KubeObject): ObjectAttrs;
  /**
   * Builds the cache entry of an object (default: an Entry holding `attrs(obj)`). Lets a resource keep entry and
   * attributes in one compact object: at a million cached objects each object header counts.
   */
  entry?(key: string, rv: number, value: Buffer, obj: KubeObject): CacheEntry;
  /** Changes kept in memory for watch resume. */
  historyCapacity?: number;
  /**
   * Bytes those changes may hold: each value with its decoded labels, and for the FRAMES_KEPT newest also its
   * watch frame (a second copy of the value).
   * Counted as well as capped by number because a client may write objects of up to 3 MiB: 100,000 of them would
   * be 300 GB. An older resume replays the storage log instead.
   */
  historyBytes?: number;
  /** Snapshots of paginated lists kept for their continue tokens. */
  snapshotLimit?: number;
  /** How long such a snapshot is kept. */
  snapshotTTLms?: number;
  /**
   * Field labels (keys of ObjectAttrs.fields) to index: a list whose field selector pins one of them to a value
   * looks only at the objects carrying that value instead of scanning the namespace.
   */
  indexedFields?: string[];
  onError?(err: Error): void;
  /** Where the cache records its metrics (default: series nobody collects). */
  metrics?: ResourceCacheMetrics;
}

export interface CacheListOptions {
  /** Serve exactly this revision; unset = the cache's current revision. */
  rv?: number;
  /** Leave out objects that could not be read instead of failing (the caller reports them: corruptUnder). */
  allowCorrupt?: boolean;
  startKey?: string;
  limit?: number;
  predicate: Predicate;
}

export interface CacheListResult {
  items: CacheEntry[];
  rv: number;
  more: boolean;
  remaining?: number;
}

export interface WatchConsumer {
  /** A change that matches the watcher's predicate, with the type it must be reported as. */
  onEvent(ev: CacheEvent, type: WatchEventType): void;
  /** The watch cannot continue (e.g. Expired); no further events follow. */
  onError(err: Error): void;
}

export interface CacheWatchOptions {
  /** Deliver changes after this revision. Ignored when `sendInitialEvents`. */
  fromRV: number;
  /** Start with the current state (synthetic ADDED), then changes after it. */
  sendInitialEvents: boolean;
  predicate: Predicate;
}

export interface CacheWatch {
  /** The current state to send first as ADDED (already filtered), when sendInitialEvents was asked for. */
  initial: Iterable<CacheEntry> | undefined;
  /** Kept changes after the requested revision, to send before live ones (resuming from the in-memory history). */
  replay?: Iterable<{ ev: CacheEvent; type: WatchEventType }>;
  /** The revision the initial state (or the start of the watch) corresponds to. */
  startRV: number;
  stop(): void;
  /** The cache's metrics, for what the watch's server records of it (initial events sent, a slow watcher ended). */
  metrics?: ResourceCacheMetrics;
}

interface Watcher {
  prefix: string;
  predicate: Predicate;
  consumer: WatchConsumer;
  afterRV: number;
}

type Tree = BTree<string, CacheEntry>;

/**
 * What a kept change costs in memory beyond its slot: the value, and its decoded labels (a label costs about
 * 64 bytes more in a V8 dictionary than in JSON: an Event with 20,000 labels holds 0.8 MB of them).
 */
function heldBytes(entry: CacheEntry): number {
  let n = entry.value.length;
  const labels = entry.attrs.labels;
  if (labels) for (const k in labels) n += 64 + k.length + labels[k]!.length;
  return n;
}

/** Changes at the end of the history ring whose watch frames stay cached. */
const FRAMES_KEPT = 1024;

export class WatchCache {
  readonly #o: Required<Omit<WatchCacheOptions, 'onError' | 'entry' | 'metrics'>> & Pick<WatchCacheOptions, 'onError' | 'entry'>;
  readonly #m: ResourceCacheMetrics;
  /** Bytes of the cached objects' values (apiserver_resource_size_estimate_bytes), kept as changes apply. */
  #objectBytes = 0;
  #tree: Tree = new BTree<string, CacheEntry>();
  #rv = 0;
  /** Ring of recent changes; history covers revisions (#historyFloor, #rv]. */
  #history: (CacheEvent | undefined)[];
  #historyStart = 0;
  #historyLen = 0;
  #historyBytesUsed = 0;
  #historyFloor = 0;
  /**
   * Watchers without a selector, grouped by prefix: one prefix check decides a whole group and no predicate or
   * type rule runs per watcher (the common fan-out: kubectl and controllers watch a namespace or everything).
   */
  #groups = new Map<string, Set<Watcher>>();
  /** Watchers with a selector: each runs its predicate and the type rules per change. */
  #selective = new Set<Watcher>();
  #waiters: { rv: number; resolve(): void }[] = [];
  #snapshots = new Map<number, { tree: Tree; at: number }>();
  #storageWatch: Watch | undefined;
  #stopped = false;
  #ready: Promise<void> | undefined;
  /** field label → value → keys of the current objects with that value (current state only, not snapshots). */
  #indexes = new Map<string, FieldIndex>();
  #arena = new ValueArena();
  #progressListeners = new Set<(rv: number) => void>();
  /**
   * Objects whose stored value could not be read when the cache loaded (wrong or missing key, damaged bytes): not
   * in the map, and every read that would include them fails naming them (upstream's corrupt-object errors),
   * while every other object is served. A later change of the key (the unsafe delete) clears the mark.
   */
  #corrupt = new Map<string, StorageError>();

  constructor(opts: WatchCacheOptions) {
    const { metrics, ...rest } = opts;
    this.#o = { historyCapacity: 100_000, historyBytes: 32 * 1024 * 1024, snapshotLimit: 32, snapshotTTLms: 5 * 60_000, indexedFields: [], ...rest };
    this.#m = metrics ?? ResourceCacheMetrics.detached();
    this.#history = new Array(this.#o.historyCapacity);
    for (const f of this.#o.indexedFields) this.#indexes.set(f, new FieldIndex());
  }

  /** Loads the state and starts the storage watch; resolves when the cache can serve. */
  start(): Promise<void> {
    this.#ready ??= this.#load();
    return this.#ready;
  }

  get resourceVersion(): number {
    return this.#rv;
  }

  /** Revisions at or below this are gone from storage history (watch resume and exact lists get Expired). */
  get compactedRevision(): number {
    return this.#o.storage.compactedRevision();
  }

  get size(): number {
    return this.#tree.size;
  }

  /** Bytes of the serialized objects held now. */
  get objectBytes(): number {
    return this.#objectBytes;
  }

  /** Changes the history ring holds at most. */
  get historyCapacity(): number {
    return this.#history.length;
  }

  async #load(): Promise<void> {
    for (;;) {
      const tree: Tree = new BTree<string, CacheEntry>();
      let rv: number | undefined;
      let startKey: string | undefined;
      let bytes = 0;
      const corrupt = new Map<string, StorageError>();
      try {
        for (;;) {
          const page = await this.#o.storage.list(this.#o.prefix, { ...(rv !== undefined ? { rv } : {}), ...(startKey ? { startKey } : {}), limit: 10_000, collectCorrupt: true });
          rv = page.rv;
          for (const err of page.corrupt ?? []) corrupt.set(err.key, err);
          for (const s of page.items) {
            const obj = s.object ?? this.#o.codec.decode(s.value);
            tree.set(s.key, this.#entry(s.key, s.rv, s.value, obj, true));
            bytes += s.value.length;
          }
          if (!page.more || page.items.length === 0) break;
          startKey = page.items[page.items.length - 1]!.key + '\0';
        }
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Expired') continue; // compacted under our feet: list again
        throw e;
      }
      this.#tree = tree;
      this.#corrupt = corrupt;
      this.#objectBytes = bytes;
      for (const idx of this.#indexes.values()) idx.clear();
      tree.forEach((entry) => this.#index(entry, true));
      this.#rv = rv ?? 0;
      this.#historyFloor = this.#rv;
      this.#historyLen = 0;
      this.#historyBytesUsed = 0;
      this.#storageWatch = this.#o.storage.watch(this.#o.prefix, this.#rv, {
        onEvent: (ev) => this.#apply(ev),
        onProgress: (rv) => this.#progress(rv),
        onError: (err) => this.#onStorageError(err),
      });
      this.#m.initializations.value++;
      return;
    }
  }

  /**
   * A cache entry. Values that will sit in the tree (`keep`) are copied into the arena's shared slabs; passing ones
   * (deletions, private replays) keep their own bytes so they do not pin slab space after they are gone.
   */
  #entry(key: string, rv: number, value: Buffer, obj: KubeObject, keep: boolean): CacheEntry {
    const v = keep ? this.#arena.copy(value) : value;
    return this.#o.entry ? this.#o.entry(key, rv, v, obj) : new Entry(key, rv, v, this.#o.attrs(obj));
  }

  #toCacheEvent(se: StorageEvent, prev: CacheEntry | undefined, keep: boolean): CacheEvent {
    const obj = se.object ?? this.#o.codec.decode(se.value);
    return new CacheEvent(se.type, se.rv, this.#entry(se.key, se.rv, se.value, obj, keep), prev);
  }

  #apply(se: StorageEvent): void {
    if (this.#stopped) return;
    const ev = (se.type === 'ADDED' && this.#insert(se)) || this.#replace(se);
    if (!ev) return;
    const m = this.#m;
    m.eventsReceived.value++;
    if (se.type !== 'DELETED') {
      this.#index(ev.entry, true);
      this.#objectBytes += ev.entry.value.length;
    }
    this.#remember(ev);
    this.#rv = se.rv;
    this.#dispatch(ev);
    m.eventsDispatched.value++;
    if (this.#waiters.length) this.#wake();
  }

  /**
   * A key created at this revision is not in a cache that applied its deletion: one descent of the tree (insert if
   * absent) instead of a lookup and then an insert, for what most events are. Undefined, with the tree unchanged, if
   * the key was there after all.
   */
  #insert(se: StorageEvent): CacheEvent | undefined {
    if (this.#corrupt.size > 0) this.#corrupt.delete(se.key);
    const ev = this.#toCacheEvent(se, undefined, true);
    return this.#tree.set(se.key, ev.entry, false) ? ev : undefined;
  }

  /** Any change to the tree with the entry it replaces; undefined when there is nothing to tell (see below). */
  #replace(se: StorageEvent): CacheEvent | undefined {
    const prev = this.#tree.get(se.key);
    if (se.type === 'DELETED' && se.value.length === 0) {
      // The unsafe delete of a value that could not be read: its DELETED carries no value. An object the cache
      // still holds (it became unreadable later) is reported gone as last seen; one it never held (unreadable
      // since load) was never shown to a watcher, so only the revision moves on.
      this.#corrupt.delete(se.key);
      if (!prev) {
        this.#progress(se.rv);
        return undefined;
      }
      se = { type: 'DELETED', key: se.key, rv: se.rv, value: this.#o.codec.setResourceVersion(prev.value, se.rv) };
    } else if (this.#corrupt.size > 0) this.#corrupt.delete(se.key);
    const ev = this.#toCacheEvent(se, prev, se.type !== 'DELETED');
    if (prev) {
      this.#index(prev, false);
      this.#objectBytes -= prev.value.length;
    }
    if (se.type === 'DELETED') this.#tree.delete(se.key);
    else this.#tree.set(se.key, ev.entry);
    return ev;
  }

  /** The shared revision moved on through other resources' writes: this state is current at `rv` too. */
  #progress(rv: number): void {
    if (this.#stopped || rv <= this.#rv) return;
    this.#rv = rv;
    if (this.#waiters.length) this.#wake();
    for (const l of this.#progressListeners) l(rv);
  }

  /** Calls `listener` whenever the revision moves on without a change under the cache's prefix; returns its removal. */
  addProgressListener(listener: (rv: number) => void): () => void {
    this.#progressListeners.add(listener);
    return () => this.#progressListeners.delete(listener);
  }

  #wake(): void {
    const due = this.#waiters.filter((x) => x.rv <= this.#rv);
    this.#waiters = this.#waiters.filter((x) => x.rv > this.#rv);
    for (const x of due) x.resolve();
  }

  /**
   * Passes a live change to every watcher it concerns. Watchers added or stopped by a consumer during the loop are
   * safe: Set/Map iteration skips deleted members, and a watcher added now starts after this revision (afterRV).
   */
  #dispatch(ev: CacheEvent): void {
    const key = ev.entry.key;
    const rv = ev.rv;
    const type = ev.type;
    for (const [prefix, group] of this.#groups) {
      if (!key.startsWith(prefix)) continue;
      for (const w of group) if (rv > w.afterRV) w.consumer.onEvent(ev, type);
    }
    for (const w of this.#selective) {
      if (rv > w.afterRV && key.startsWith(w.prefix)) dispatch(w, ev);
    }
  }

  /** Registers a live watcher; returns its stop function. */
  #addWatcher(w: Watcher): () => void {
    if (!w.predicate.everything) {
      this.#selective.add(w);
      return () => this.#selective.delete(w);
    }
    let group = this.#groups.get(w.prefix);
    if (!group) this.#groups.set(w.prefix, (group = new Set()));
    group.add(w);
    const g = group;
    return () => {
      if (g.delete(w) && g.size === 0 && this.#groups.get(w.prefix) === g) this.#groups.delete(w.prefix);
    };
  }

  #clearWatchers(): void {
    this.#groups.clear();
    this.#selective.clear();
  }

  #index(entry: CacheEntry, add: boolean): void {
    for (const [field, idx] of this.#indexes) {
      if (add) idx.add(entry.attrs.field(field), entry.key);
      else idx.delete(entry.attrs.field(field), entry.key);
    }
  }

  /**
   * Keys an index says can match, sorted, when the index narrows the search enough to beat a scan, with the index's
   * name as upstream's list metrics give it (`f:<field>`).
   */
  #candidates(pred: Predicate, treeSize: number): { keys: string[]; index: string } | undefined {
    if (!pred.exact?.length) return undefined;
    let best: { idx: FieldIndex; field: string; value: string; n: number } | undefined;
    for (const { field, value } of pred.exact) {
      const idx = this.#indexes.get(field);
      if (!idx) continue;
      const n = idx.count(value);
      if (n === 0) return { keys: [], index: `f:${field}` };
      if (!best || n < best.n) best = { idx, field, value, n };
    }
    // Sorting candidates costs more per key than a scan step: use the index only when it prunes most objects.
    if (!best || best.n > Math.max(1024, treeSize / 16)) return undefined;
    return { keys: best.idx.sortedKeys(best.value), index: `f:${best.field}` };
  }

  #remember(ev: CacheEvent): void {
    const cap = this.#history.length;
    // Only recent changes keep their watch frame (live watchers take theirs at once): a frame per kept change
    // would add a copy of every object in the ring.
    if (this.#historyLen >= FRAMES_KEPT) {
      const old = this.#history[(this.#historyStart + this.#historyLen - FRAMES_KEPT) % cap]!;
      if (old.dropFrame()) this.#historyBytesUsed -= old.entry.value.length;
    }
    if (this.#historyLen === cap) this.#forgetOldest();
    this.#history[(this.#historyStart + this.#historyLen) % cap] = ev;
    this.#historyLen++;
    this.#historyBytesUsed += heldBytes(ev.entry) + ev.entry.value.length;
    while (this.#historyBytesUsed > this.#o.historyBytes && this.#historyLen > 1) this.#forgetOldest();
  }

  #forgetOldest(): void {
    const oldest = this.#history[this.#historyStart]!;
    this.#historyFloor = oldest.rv;
    this.#historyBytesUsed -= heldBytes(oldest.entry) + (oldest.dropFrame() ? oldest.entry.value.length : 0);
    this.#history[this.#historyStart] = undefined;
    this.#historyStart = (this.#historyStart + 1) % this.#history.length;
    this.#historyLen--;
  }

  #onStorageError(err: Error): void {
    // The one storage watch failed: end every watcher (clients re-watch) and rebuild from a fresh list.
    this.#o.onError?.(err);
    const all = [...this.#selective];
    for (const group of this.#groups.values()) all.push(...group);
    this.#clearWatchers();
    for (const w of all) w.consumer.onError(err);
    this.#storageWatch = undefined;
    if (this.#stopped) return;
    this.#ready = this.#load();
    this.#ready.catch((e: unknown) => this.#o.onError?.(e as Error));
  }

  /** Resolves once the cache has seen revision `rv`; 504 Too large resource version after `timeoutMs`. */
  waitUntilFresh(rv: number, timeoutMs = 3000): Promise<void> {
    // Upstream observes every wait for a revision, those that did not have to wait included.
    const wait = this.#m.readWait;
    if (this.#rv >= rv) {
      if (rv > 0) wait.observe(0);
      return Promise.resolve();
    }
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const waiter = {
        rv,
        resolve: () => {
          clearTimeout(timer);
          wait.observe((performance.now() - start) / 1000);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((x) => x !== waiter);
        wait.observe((performance.now() - start) / 1000);
        reject(newTooLargeResourceVersion(rv, this.#rv));
      }, timeoutMs);
      timer.unref?.();
      this.#waiters.push(waiter);
    });
  }

  /** Waits until the cache holds every write committed before the call (a consistent read). */
  async waitForConsistentRead(): Promise<number> {
    const rv = await this.#o.storage.currentRevision();
    await this.waitUntilFresh(rv);
    return this.#rv;
  }

  /** The current entry of `key`; throws the key's StorageError Corrupt when its stored value could not be read. */
  get(key: string): CacheEntry | undefined {
    if (this.#corrupt.size > 0) {
      const bad = this.#corrupt.get(key);
      if (bad) throw bad;
    }
    return this.#tree.get(key);
  }

  /** The errors of the objects under `prefix` (from `from` on) that could not be read, in key order. */
  corruptUnder(prefix: string, from = prefix): StorageError[] {
    if (this.#corrupt.size === 0) return [];
    return [...this.#corrupt.values()].filter((e) => e.key.startsWith(prefix) && e.key >= from).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** A list including objects that could not be read fails naming them. */
  #failIfCorrupt(prefix: string, from: string): void {
    if (this.#corrupt.size === 0) return;
    const bad = this.corruptUnder(prefix, from);
    if (bad.length) throw CorruptObjectsError.of(prefix, bad);
  }

  /** How many objects could not be read at load and are still there (tests, logs). */
  get corruptCount(): number {
    return this.#corrupt.size;
  }

  /** The map at revision `rv` (unset: current), or undefined when that revision is neither current nor kept. */
  #at(rv: number | undefined): { tree: Tree; rv: number } | undefined {
    if (rv === undefined || rv === this.#rv) return { tree: this.#tree, rv: this.#rv };
    const snap = this.#snapshots.get(rv);
    return snap ? { tree: snap.tree, rv } : undefined;
  }

  /**
   * Lists from the cache. Returns undefined when the requested revision is neither current nor a kept snapshot:
   * the caller then reads from storage.
   */
  list(prefix: string, opts: CacheListOptions): CacheListResult | undefined {
    const at = this.#at(opts.rv);
    if (!at) return undefined;
    const { tree, rv } = at;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const from = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    if (!opts.allowCorrupt) this.#failIfCorrupt(prefix, from);
    const items: CacheEntry[] = [];
    let more = false;
    let lastKey = '';
    const pred = opts.predicate;
    const index = tree === this.#tree && !pred.everything ? this.#candidates(pred, tree.size) : undefined;
    // Upstream's "fetched" is the candidate set the list is filtered from: the index's keys or the range.
    const fetched = index ? index.keys.length : countRange(tree, from, prefix);
    if (index) {
      for (const key of index.keys) {
        if (key < from || !key.startsWith(prefix)) continue;
        const entry = tree.get(key);
        if (!entry || !pred.matches(entry.attrs)) continue;
        if (items.length >= limit) {
          more = true;
          break;
        }
        items.push(entry);
        lastKey = key;
      }
    } else {
      // forRange with a callback avoids the per-item [key, value] arrays of an iterator.
      tree.forRange(from, prefixEnd(prefix), false, (key, entry) => {
        if (!pred.everything && !pred.matches(entry.attrs)) return;
        if (items.length >= limit) {
          more = true;
          return { break: true };
        }
        items.push(entry);
        lastKey = key;
        return;
      });
    }
    const result: CacheListResult = { items, rv, more };
    if (more) {
      if (pred.everything) result.remaining = countRange(tree, lastKey + '\0', prefix);
      if (tree === this.#tree) this.#keepSnapshot(rv);
    }
    this.#m.recordList(index?.index ?? '', fetched, items.length);
    return result;
  }

  /** Keeps (or refreshes) the snapshot of the current revision `rv` for continue tokens, and returns it. */
  #keepSnapshot(rv: number): Tree {
    const now = Date.now();
    for (const [k, s] of this.#snapshots) if (now - s.at > this.#o.snapshotTTLms) this.#snapshots.delete(k);
    const existing = this.#snapshots.get(rv);
    if (existing) {
      existing.at = now;
      return existing.tree;
    }
    if (this.#snapshots.size >= this.#o.snapshotLimit) {
      const oldest = this.#snapshots.keys().next().value;
      if (oldest !== undefined) this.#snapshots.delete(oldest);
    }
    const tree = this.#tree.clone();
    this.#snapshots.set(rv, { tree, at: now });
    return tree;
  }

  /**
   * One page of an unfiltered paginated list, to be walked at the reader's pace like listView: where the page ends
   * and how many entries follow come from ranks in the tree (O(log n)), so a page is neither collected nor counted
   * by walking the rest. Keeps the snapshot for the continue token exactly as `list` does. Undefined when the
   * revision is neither current nor kept, or when the predicate filters (then `list` collects the page).
   */
  pageView(prefix: string, opts: CacheListOptions & { limit: number }): CachePageView | undefined {
    const pred = opts.predicate;
    if (!pred.everything || !(opts.limit > 0)) return undefined;
    const at = this.#at(opts.rv);
    if (!at) return undefined;
    const from = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    this.#failIfCorrupt(prefix, from);
    const b = pageBounds(at.tree, from, prefixEnd(prefix), opts.limit);
    let tree = at.tree;
    // The page is written over several socket writes: walk a snapshot, never the live map.
    if (tree === this.#tree) tree = b.more ? this.#keepSnapshot(at.rv) : tree.clone();
    const page: CachePageView = { rv: at.rv, more: b.more, remaining: b.remaining, cursor: () => new RangeCursor(tree, from, b.end, pred) };
    if (b.lastKey !== undefined) page.lastKey = b.lastKey;
    const returned = b.more ? opts.limit : countRange(at.tree, from, prefix);
    this.#m.recordList('', returned + b.remaining, returned);
    return page;
  }

  /**
   * Starts a watch. Live changes are passed to `consumer` synchronously as they arrive, so the consumer must queue
   * and pace them; the initial state and history replay come back as iterables to pull at the consumer's pace.
   */
  watch(prefix: string, opts: CacheWatchOptions, consumer: WatchConsumer): CacheWatch {
    if (opts.sendInitialEvents) {
      const snapshot = this.#tree.clone();
      const startRV = this.#rv;
      const w: Watcher = { prefix, predicate: opts.predicate, consumer, afterRV: startRV };
      return { initial: filtered(snapshot, prefix, opts.predicate), startRV, stop: this.#addWatcher(w), metrics: this.#m };
    }
    const from = opts.fromRV;
    if (from >= this.#historyFloor) {
      // Kept history after `from` is captured now (references only) and sent first; live changes after the current
      // revision follow, so nothing slips between or arrives twice.
      const w: Watcher = { prefix, predicate: opts.predicate, consumer, afterRV: Math.max(from, this.#rv) };
      const kept: CacheEvent[] = [];
      const cap = this.#history.length;
      for (let i = 0; i < this.#historyLen; i++) {
        const ev = this.#history[(this.#historyStart + i) % cap]!;
        if (ev.rv > from && ev.entry.key.startsWith(prefix)) kept.push(ev);
      }
      return { initial: undefined, replay: replayOf(kept, opts.predicate), startRV: from, stop: this.#addWatcher(w), metrics: this.#m };
    }
    // Older than the ring: a storage watch of its own replays the revision log (or reports Expired).
    const w: Watcher = { prefix, predicate: opts.predicate, consumer, afterRV: from };
    const prevByKey = new Map<string, CacheEntry>();
    const sw = this.#o.storage.watch(prefix, from, {
      onEvent: (se) => {
        const prev = prevByKey.get(se.key) ?? (se.prevValue ? this.#decodeEntry(se.key, se.prevValue) : undefined);
        const ev = this.#toCacheEvent(se, prev, false);
        if (se.type === 'DELETED') prevByKey.delete(se.key);
        else prevByKey.set(se.key, ev.entry);
        if (prevByKey.size > 10_000) prevByKey.clear();
        dispatch(w, ev);
      },
      onError: (err) => consumer.onError(err),
    });
    return { initial: undefined, startRV: from, stop: () => sw.stop(), metrics: this.#m };
  }

  #decodeEntry(key: string, value: Buffer): CacheEntry {
    const obj = this.#o.codec.decode(value);
    const rv = Number(obj.metadata.resourceVersion ?? 0);
    return this.#entry(key, rv, value, obj, false);
  }

  stop(): void {
    this.#stopped = true;
    this.#storageWatch?.stop();
    this.#clearWatchers();
    this.#progressListeners.clear();
    this.#snapshots.clear();
  }

  /**
   * A whole list (no limit) to be walked at the reader's pace: entries come from a copy-on-write snapshot taken
   * now, so a list streamed over many socket writes is still one revision. Undefined when the revision is neither
   * current nor kept (the caller then reads from storage).
   */
  listView(prefix: string, opts: Omit<CacheListOptions, 'limit'>): CacheListView | undefined {
    const at = this.#at(opts.rv);
    if (!at) return undefined;
    const pred = opts.predicate;
    const current = at.tree === this.#tree;
    // The index describes the current state only: take its candidates together with the snapshot.
    const index = current && !pred.everything ? this.#candidates(pred, at.tree.size) : undefined;
    const tree = current ? at.tree.clone() : at.tree;
    const rv = at.rv;
    const from = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    this.#failIfCorrupt(prefix, from);
    const candidates = index?.keys;
    const cursor = (): CacheCursor => (candidates ? new KeysCursor(tree, candidates, from, prefix, pred) : new RangeCursor(tree, from, prefixEnd(prefix), pred));
    const fetched = candidates ? candidates.length : countRange(tree, from, prefix);
    const m = this.#m;
    if (pred.everything) {
      m.recordList('', fetched, fetched);
      return { rv, cursor };
    }
    // What a selector lets through is known once the list has been walked (at the writer's pace): counted then.
    const name = index?.index ?? '';
    return { rv, cursor: () => countedCursor(cursor(), (returned) => m.recordList(name, fetched, returned)) };
  }
}

/** The type a watcher with `pred` sees for a change, or undefined when it sees nothing (upstream cacher rules). */
function typeFor(pred: Predicate, ev: CacheEvent): WatchEventType | undefined {
  if (pred.everything) return ev.type;
  const cur = pred.matches(ev.entry.attrs);
  if (ev.type !== 'MODIFIED') return cur ? ev.type : undefined;
  const was = ev.prev !== undefined && pred.matches(ev.prev.attrs);
  if (cur && was) return 'MODIFIED';
  if (cur) return 'ADDED';
  return was ? 'DELETED' : undefined;
}

/** `c`, reporting how many entries it handed out once it has none left. */
function countedCursor(c: CacheCursor, done: (taken: number) => void): CacheCursor {
  let taken = 0;
  let reported = false;
  const count = (visit: (e: CacheEntry) => boolean) => (e: CacheEntry) => {
    taken++;
    return visit(e);
  };
  return {
    next(visit) {
      const more = c.next(count(visit));
      if (!more && !reported) {
        reported = true;
        done(taken);
      }
      return more;
    },
  };
}

function dispatch(w: Watcher, ev: CacheEvent): void {
  const type = typeFor(w.predicate, ev);
  if (type) w.consumer.onEvent(ev, type);
}

function* replayOf(kept: CacheEvent[], pred: Predicate): Generator<{ ev: CacheEvent; type: WatchEventType }> {
  for (const ev of kept) {
    const type = typeFor(pred, ev);
    if (type) yield { ev, type };
  }
}
