/**
 * The cacher (upstream `pkg/storage/cacher/cacher.go`): a Storage in front of the backend for one resource's key
 * prefix, with the watch cache (./watch-cache.ts) behind it. Writes, counts and compaction go to the backend; reads
 * are answered by the cache whenever it can answer them at the revision asked for. Which reads those are is decided
 * here and nowhere else:
 *
 * - **consistent** (a list or watch without resourceVersion, a continue token without a revision): the cache once it
 *   has seen the backend's current revision (upstream's consistent reads from cache); the backend itself when it
 *   says it cannot tell the cache reliably that it caught up (Storage.consistentReadsFromCache false: etcd before
 *   3.4.31 / 3.5.13), as upstream delegates them without RequestWatchProgress. A watch-list request (initial events
 *   with bookmarks) is then refused as upstream refuses it: the watch ends at once with an ERROR event, and
 *   client-go falls back to a list;
 * - **not older than N** (resourceVersion=N on a list without limit, a watch, a get): the cache once it has seen N,
 *   504 after a wait; "0" is whatever the cache holds;
 * - **exact N** (resourceVersionMatch=Exact, a continue token, resourceVersion=N with a limit): the cache's current
 *   state or a snapshot it kept for that revision, else the backend at N (410 once compacted there);
 * - a get without resourceVersion reads the backend (upstream's quorum read).
 *
 * The Storage methods keep the backend's contract exactly (the shared conformance suite runs against a Cacher):
 * their latest reads are consistent reads, and reads at or below the backend's compacted revision get the backend's
 * Expired. The registry's richer reads (`getObject`, `getList`, `watchObjects`) serve the cache's whole window, as
 * upstream's watch cache does after etcd compacts.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { newWatchInternalError } from '../../apimachinery/errors.ts';
import { parseResourceVersion } from '../../apimachinery/resource-version.ts';
import type {
  DeleteOptions,
  GuaranteedUpdateOptions,
  GuaranteedUpdateResult,
  ListOptions,
  ListResult,
  Storage,
  StorageEvent,
  StoredObject,
  Watch,
  WatchHandler,
} from '../interface.ts';
import { CorruptObjectsError, StorageError } from '../interface.ts';
import { InstrumentedStorage } from '../instrumented.ts';
import type { StorageMetrics } from '../metrics.ts';
import type { CacherMetrics, ResourceCacheMetrics } from './metrics.ts';
import { context, trace } from '@opentelemetry/api';
import { activeTracer, auditID, endWithError, startChildSpan } from '../../tracing/tracing.ts';
import type { CacheListView } from './list-cursor.ts';
import { type CacheEntry, type CacheEvent, EVERYTHING, type Predicate } from './types.ts';
import { type CacheWatch, WatchCache, type WatchCacheOptions, type WatchConsumer } from './watch-cache.ts';

export type { CacheWatch, WatchConsumer } from './watch-cache.ts';

export interface CacherOptions extends Omit<WatchCacheOptions, 'metrics'> {
  /**
   * Record this resource's metrics: the cache's (`cache`) and its calls to the backend (`storage`, which wraps the
   * backend). The group/resource label the series.
   */
  metrics?: { group: string; resource: string; cache?: CacherMetrics; storage?: StorageMetrics };
}

export interface GetListOptions {
  /** The request's resourceVersion ('' or unset: a consistent read). Ignored with `continueFrom`. */
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** Items per page; 0: all. */
  limit: number;
  /** Where a continue token resumes: after `startKey`'s predecessor, at revision `rv` (<= 0: a consistent read). */
  continueFrom?: { startKey: string; rv: number };
  predicate: Predicate;
}

/**
 * A list or one page of it. From the cache it is a `view` over a snapshot, walked at the reader's pace without
 * being collected (filtered pages are collected into `items`); from the backend it is `items`.
 */
export type GetListResult =
  | { view: CacheListView; items?: undefined; rv: number; more: boolean; remaining?: number; lastKey?: string }
  | { view?: undefined; items: StoredObject[]; rv: number; more: boolean; remaining?: number; lastKey?: string };

export interface WatchObjectsOptions {
  /** The request's resourceVersion: '' or '0' from now, N after N. */
  resourceVersion: string;
  /** Start with the state at a consistent ('' ) or not-older-than-N revision, then changes after it. */
  sendInitialEvents: boolean;
  /** With sendInitialEvents: a watch-list request (upstream's isListWatchRequest), which needs RequestWatchProgress. */
  allowWatchBookmarks?: boolean;
  predicate: Predicate;
}

/** Upstream's text for a watch-list request the storage cannot serve (client-go then falls back to a list). */
export const WATCH_LIST_UNSUPPORTED = 'a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled';

export class Cacher implements Storage {
  readonly #backend: Storage;
  readonly #cache: WatchCache;
  readonly #o: CacherOptions;
  readonly #m: ResourceCacheMetrics | undefined;
  #closed = false;
  /**
   * Consistent reads go to the backend: it cannot tell the cache reliably that it has caught up (old etcd), as
   * upstream's shouldDelegateList does without RequestWatchProgress support.
   */
  readonly #delegateConsistent: boolean;

  constructor(opts: CacherOptions) {
    this.#o = opts;
    this.#delegateConsistent = opts.storage.consistentReadsFromCache === false;
    const { metrics, ...rest } = opts;
    this.#backend = metrics?.storage ? new InstrumentedStorage(opts.storage, metrics.storage.forResource(metrics.group, metrics.resource)) : opts.storage;
    this.#m = metrics?.cache?.forResource(metrics.group, metrics.resource, () => this.#cache);
    this.#cache = new WatchCache({ ...rest, storage: this.#backend, ...(this.#m ? { metrics: this.#m } : {}) });
  }

  get name(): string {
    return this.#backend.name;
  }

  get consistentReadsFromCache(): boolean {
    return !this.#delegateConsistent;
  }

  /** Loads the cache and starts its storage watch; resolves when it can serve. */
  start(): Promise<void> {
    return this.#cache.start();
  }

  /** Stops the cache and ends its watchers. The backend stays open: it is shared, and closed by whoever opened it. */
  stop(): void {
    this.#cache.stop();
  }

  /** The newest revision the cache has seen (what a periodic bookmark may claim). */
  get resourceVersion(): number {
    return this.#cache.resourceVersion;
  }

  /** Objects in the cache now. */
  get size(): number {
    return this.#cache.size;
  }

  // ---- Storage: writes and bookkeeping go to the backend ----

  create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredObject> {
    return this.#open(() => this.#backend.create(key, obj, ttlSeconds));
  }

  guaranteedUpdate(key: string, opts: GuaranteedUpdateOptions): Promise<GuaranteedUpdateResult> {
    return this.#open(() => this.#backend.guaranteedUpdate(key, opts));
  }

  delete(key: string, opts?: DeleteOptions): Promise<StoredObject> {
    return this.#open(() => this.#backend.delete(key, opts));
  }

  count(prefix: string): Promise<number> {
    return this.#open(() => this.#backend.count(prefix));
  }

  currentRevision(): Promise<number> {
    return this.#open(() => this.#backend.currentRevision());
  }

  compact(rv: number): Promise<void> {
    return this.#open(() => this.#backend.compact(rv));
  }

  compactedRevision(): number {
    return this.#backend.compactedRevision();
  }

  readinessCheck(): Promise<void> {
    return this.#open(() => this.#backend.readinessCheck());
  }

  /** Stops the cache; later calls fail. Writes already issued complete in the backend, which stays open (see stop). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cache.stop();
  }

  // ---- Storage: reads ----

  /** The latest state of `key`: a consistent read from the cache. */
  get(key: string): Promise<StoredObject | null> {
    return this.#open(async () => {
      if (this.#delegateConsistent) return this.#backend.get(key);
      await this.#cache.waitForConsistentRead();
      return this.#cache.get(key) ?? null;
    });
  }

  /** As the backend's list: unset `rv` is a consistent read; an exact one the cache does not hold reads the backend. */
  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.#open(async () => {
      const rv = opts.rv;
      if (rv === undefined && this.#delegateConsistent) return this.#backend.list(prefix, opts);
      if (rv === undefined) await this.#cache.waitForConsistentRead();
      else if (rv <= this.#backend.compactedRevision()) return this.#backend.list(prefix, opts);
      const at = { ...(rv !== undefined ? { rv } : {}), ...(opts.startKey ? { startKey: opts.startKey } : {}) };
      const pred = opts.predicate;
      if (!pred && opts.collectCorrupt) {
        // Unreadable objects reported beside the list, as the backend's collectCorrupt does (an informer's list).
        const r = this.#cache.list(prefix, { ...at, ...(opts.limit ? { limit: opts.limit } : {}), predicate: EVERYTHING, allowCorrupt: true });
        if (r) return { items: r.items, rv: r.rv, more: r.more, remaining: r.remaining ?? 0, corrupt: this.#cache.corruptUnder(prefix, opts.startKey) };
      } else if (!pred) {
        const r = this.#cache.list(prefix, { ...at, ...(opts.limit ? { limit: opts.limit } : {}), predicate: EVERYTHING });
        if (r) return { items: r.items, rv: r.rv, more: r.more, remaining: r.remaining ?? 0 };
      } else {
        const view = this.#cache.listView(prefix, { ...at, predicate: EVERYTHING });
        if (view) return collect(view, pred, opts.limit && opts.limit > 0 ? opts.limit : Infinity);
      }
      return this.#backend.list(prefix, opts);
    });
  }

  /**
   * Every change under `prefix` after `fromRV`, from the cache's history and then live, as StorageEvents; changes
   * elsewhere in the cache and the revision moving on without one reach `onProgress`. From below the backend's
   * compacted revision the backend answers (Expired).
   */
  watch(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    if (this.#closed) {
      queueMicrotask(() => handler.onError(closedError(prefix)));
      return { stop() {} };
    }
    if (fromRV < this.#backend.compactedRevision()) return this.#backend.watch(prefix, fromRV, handler);
    let stopped = false;
    // Live changes wait here until the history replay has been delivered (next microtask): order is revision order.
    let queued: CacheEvent[] | undefined = [];
    const deliver = (ev: CacheEvent) => {
      if (ev.entry.key.startsWith(prefix)) handler.onEvent(storageEvent(ev));
      else handler.onProgress?.(ev.rv);
    };
    const onProgress = handler.onProgress;
    const w = this.#cache.watch(onProgress ? this.#o.prefix : prefix, { fromRV, sendInitialEvents: false, predicate: EVERYTHING }, {
      onEvent: (ev) => {
        if (stopped) return;
        if (queued) queued.push(ev);
        else deliver(ev);
      },
      onError: (err) => {
        if (!stopped) handler.onError(err);
      },
    });
    const offProgress = onProgress ? this.#cache.addProgressListener((rv) => !stopped && !queued && onProgress(rv)) : undefined;
    queueMicrotask(() => {
      for (const { ev } of w.replay ?? []) {
        if (stopped) return;
        deliver(ev);
      }
      const live = queued ?? [];
      queued = undefined;
      for (const ev of live) if (!stopped) deliver(ev);
    });
    return {
      stop: () => {
        stopped = true;
        w.stop();
        offProgress?.();
      },
    };
  }

  // ---- The registry's reads, with the request's resourceVersion semantics ----

  /** GET: without resourceVersion the backend's latest (a quorum read); "0" the cache as it is; N once it has seen N. */
  async getObject(key: string, resourceVersion: string | undefined): Promise<StoredObject | null> {
    if (!resourceVersion) return this.#backend.get(key);
    const rv = parseResourceVersion(resourceVersion);
    if (rv > 0) await this.#cache.waitUntilFresh(rv);
    return this.#cache.get(key) ?? null;
  }

  /**
   * LIST at the revision the request names (see the top of this file). Unfiltered pages and whole lists come back
   * as views over a snapshot; a revision the cache does not hold is read from the backend (StorageError Expired when
   * it is compacted; a future one is waited for).
   */
  getList(prefix: string, o: GetListOptions): Promise<GetListResult> {
    // Upstream's cacher.GetList span, when the request is traced: whether a list came from the cache or went on
    // to the backend (whose span is then its child) is what a slow list's trace needs to show.
    if (!activeTracer()) return this.#getList(prefix, o);
    const span = startChildSpan('cacher.GetList', () => ({
      'audit-id': auditID(),
      key: prefix,
      resourceVersion: o.resourceVersion ?? '',
      resourceVersionMatch: o.resourceVersionMatch ?? '',
      limit: o.limit,
      continue: o.continueFrom !== undefined,
    }));
    if (!span) return this.#getList(prefix, o);
    return context.with(trace.setSpan(context.active(), span), () => this.#getList(prefix, o)).then(
      (r) => {
        span.end();
        return r;
      },
      (e: unknown) => {
        endWithError(span, e);
        throw e;
      },
    );
  }

  async #getList(prefix: string, o: GetListOptions): Promise<GetListResult> {
    const limit = o.limit > 0 ? o.limit : 0;
    let exactRV: number | undefined;
    if (o.continueFrom) {
      if (o.continueFrom.rv > 0) exactRV = o.continueFrom.rv;
      else if (this.#delegateConsistent) return this.#listBackend(prefix, undefined, o.continueFrom.startKey, limit, o.predicate);
      else await this.#consistentRead();
    } else {
      const rv = o.resourceVersion ?? '';
      const match = o.resourceVersionMatch ?? '';
      if (rv === '' && this.#delegateConsistent) return this.#listBackend(prefix, undefined, undefined, limit, o.predicate);
      if (rv === '') await this.#consistentRead();
      else {
        const n = parseResourceVersion(rv);
        if (match === 'Exact' || (match === '' && limit > 0 && n > 0)) exactRV = n;
        else if (n > 0) await this.#cache.waitUntilFresh(n);
      }
    }
    const startKey = o.continueFrom?.startKey;
    const at = { ...(exactRV !== undefined ? { rv: exactRV } : {}), ...(startKey ? { startKey } : {}), predicate: o.predicate };
    if (limit === 0) {
      const view = this.#cache.listView(prefix, at);
      if (view) return { view, rv: view.rv, more: false };
    } else {
      const page = this.#cache.pageView(prefix, { ...at, limit });
      if (page) return page.lastKey === undefined ? { view: page, rv: page.rv, more: page.more, remaining: page.remaining } : { view: page, rv: page.rv, more: page.more, remaining: page.remaining, lastKey: page.lastKey };
      const r = this.#cache.list(prefix, { ...at, limit });
      if (r) return withLastKey({ items: r.items, rv: r.rv, more: r.more, ...(r.remaining !== undefined ? { remaining: r.remaining } : {}) });
    }
    return this.#listBackend(prefix, exactRV!, startKey, limit, o.predicate);
  }

  /** A list from the backend: at `rv`, or (undefined) its latest revision by a quorum read. */
  async #listBackend(prefix: string, rv: number | undefined, startKey: string | undefined, limit: number, pred: Predicate): Promise<GetListResult> {
    const { codec, attrs } = this.#o;
    for (;;) {
      try {
        const r = await this.#backend.list(prefix, {
          ...(rv !== undefined ? { rv } : {}),
          ...(startKey ? { startKey } : {}),
          limit,
          collectCorrupt: true,
          ...(pred.everything ? {} : { predicate: (s: StoredObject) => pred.matches(attrs(s.object ?? codec.decode(s.value))) }),
        });
        // Every unreadable object of the range is named, as upstream's list aggregates them.
        if (r.corrupt?.length) throw CorruptObjectsError.of(prefix, r.corrupt);
        return withLastKey({ items: r.items, rv: r.rv, more: r.more, ...(r.remaining !== undefined ? { remaining: r.remaining } : {}) });
      } catch (e) {
        if (!(e instanceof StorageError && e.code === 'TooLargeResourceVersion') || rv === undefined) throw e;
        await this.#cache.waitUntilFresh(rv);
      }
    }
  }

  /**
   * WATCH: from now (resourceVersion '' or "0"), after N (a resume: the cache's history, older ones replay the
   * backend's log), or with sendInitialEvents the state at a consistent ('') or not-older-than-N revision first.
   * Errors reach `consumer.onError` as StorageErrors (Expired when N is older than anything kept).
   */
  async watchObjects(prefix: string, o: WatchObjectsOptions, consumer: WatchConsumer): Promise<CacheWatch> {
    const rv = o.resourceVersion;
    if (o.sendInitialEvents && o.allowWatchBookmarks && this.#delegateConsistent) {
      // After the caller has started the watch's response: the error is its one event.
      setImmediate(() => consumer.onError(newWatchInternalError(WATCH_LIST_UNSUPPORTED)));
      return { initial: undefined, startRV: this.#cache.resourceVersion, stop: () => {} };
    }
    if (o.sendInitialEvents) {
      if (rv === '') await this.#cache.waitForConsistentRead();
      else {
        const want = parseResourceVersion(rv);
        if (want > 0) await this.#cache.waitUntilFresh(want);
      }
    }
    const fromRV = o.sendInitialEvents || rv === '' || rv === '0' ? this.#cache.resourceVersion : parseResourceVersion(rv);
    return this.#cache.watch(prefix, { fromRV, sendInitialEvents: o.sendInitialEvents, predicate: o.predicate }, consumer);
  }

  /**
   * A LIST's wait for the cache to hold every write committed before it (upstream's consistent read from cache,
   * counted by apiserver_watch_cache_consistent_read_total). There is no fallback to storage: a cache that does not
   * catch up in time answers 504, as upstream with ConsistentListFromCacheSkipTimeoutFallback answers 429.
   */
  async #consistentRead(): Promise<void> {
    try {
      await this.#cache.waitForConsistentRead();
    } catch (e) {
      this.#m?.recordConsistentRead(false, false);
      throw e;
    }
    this.#m?.recordConsistentRead(true, false);
  }

  #open<R>(fn: () => Promise<R>): Promise<R> {
    if (this.#closed) return Promise.reject(closedError(''));
    return fn();
  }
}

function closedError(key: string): StorageError {
  return new StorageError('Internal', key, 'the watch cache is closed');
}

function storageEvent(ev: CacheEvent): StorageEvent {
  const e = ev.entry;
  return ev.prev ? { type: ev.type, key: e.key, rv: ev.rv, value: e.value, prevValue: ev.prev.value } : { type: ev.type, key: e.key, rv: ev.rv, value: e.value };
}

function withLastKey<R extends { items: StoredObject[]; more: boolean }>(r: R): R & { lastKey?: string } {
  const last = r.items[r.items.length - 1];
  return r.more && last ? { ...r, lastKey: last.key } : r;
}

/** A backend-style page from a view: `pred` over stored objects, `limit` matches, `more` when another one follows. */
function collect(view: CacheListView, pred: (s: StoredObject) => boolean, limit: number): ListResult {
  const items: CacheEntry[] = [];
  let more = false;
  view.cursor().next((e) => {
    if (!pred(e)) return true;
    if (items.length >= limit) {
      more = true;
      return false;
    }
    items.push(e);
    return true;
  });
  return { items, rv: view.rv, more };
}
