/**
 * A Storage that records one resource's calls to the backend (upstream: the RecordEtcdRequest calls inside the etcd3
 * store, which is per resource; here the SQLite backend is shared by resources, so each resource's cacher wraps it).
 *
 * Upstream times the etcd round trips only, not the apiserver work between them: a GuaranteedUpdate is a `get` of
 * the current state and, unless nothing changed, an `update`; a delete a `get` and a `delete`. The wrapper splits the
 * backend's read-modify-write at the callback the same way, so the strategy's and admission's time in tryUpdate is
 * in neither. Errors count only the backend's failures (Expired, Internal), as upstream counts etcd client errors:
 * KeyExists and KeyNotFound are answers, and a refusal by the callback is not a storage request.
 */
import type { KubeObject } from '../apis/meta/v1/types.ts';
import {
  type DeleteOptions,
  type GuaranteedUpdateOptions,
  type GuaranteedUpdateResult,
  type ListOptions,
  type ListResult,
  type Storage,
  StorageError,
  type StoredObject,
  type Watch,
  type WatchHandler,
} from './interface.ts';
import type { OperationSeries, ResourceStorageMetrics } from './metrics.ts';
import { isPromise } from './value/transformer.ts';

function failed(e: unknown): boolean {
  return e instanceof StorageError && (e.code === 'Expired' || e.code === 'Internal');
}

export class InstrumentedStorage implements Storage {
  readonly #b: Storage;
  readonly #m: ResourceStorageMetrics;

  constructor(backend: Storage, metrics: ResourceStorageMetrics) {
    this.#b = backend;
    this.#m = metrics;
  }

  get #get(): OperationSeries {
    return this.#m.op('get');
  }

  get name(): string {
    return this.#b.name;
  }

  #fail(e: unknown, op: OperationSeries, start: number): never {
    op.record(start, failed(e));
    if (e instanceof StorageError && e.code === 'Corrupt') this.#m.decodeError();
    throw e;
  }

  async get(key: string): Promise<StoredObject | null> {
    const start = performance.now();
    try {
      const r = await this.#b.get(key);
      this.#get.record(start, false);
      return r;
    } catch (e) {
      return this.#fail(e, this.#get, start);
    }
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const op = this.#m.op('list');
    const start = performance.now();
    let evaluated = 0;
    const pred = opts.predicate;
    const o = pred
      ? {
          ...opts,
          predicate: (s: StoredObject) => {
            evaluated++;
            return pred(s);
          },
        }
      : opts;
    let r: ListResult;
    try {
      r = await this.#b.list(prefix, o);
    } catch (e) {
      return this.#fail(e, op, start);
    }
    op.record(start, false);
    const returned = r.items.length;
    // Without a predicate every object read up to the limit is "evaluated" (upstream runs Everything on each).
    if (!pred) evaluated = returned;
    this.#m.recordList(r.fetched ?? evaluated + (r.more && !pred ? 1 : 0), evaluated, returned);
    return r;
  }

  async create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredObject> {
    const op = this.#m.op('create');
    const start = performance.now();
    try {
      const r = await this.#b.create(key, obj, ttlSeconds);
      op.record(start, false);
      return r;
    } catch (e) {
      return this.#fail(e, op, start);
    }
  }

  async guaranteedUpdate(key: string, opts: GuaranteedUpdateOptions): Promise<GuaranteedUpdateResult> {
    // The phase in flight: the read up to the first callback, then the write after each callback.
    let phase: OperationSeries | undefined; // undefined: still reading
    let start = performance.now();
    let inCallback = false;
    const after = () => {
      inCallback = false;
      phase = this.#m.op('update');
      start = performance.now();
    };
    const tryUpdate: GuaranteedUpdateOptions['tryUpdate'] = (current) => {
      if (!phase) this.#get.record(start, false);
      inCallback = true;
      // A callback that throws ends the call: inCallback stays set, so nothing more is recorded.
      const r = opts.tryUpdate(current);
      if (isPromise(r)) return r.then((v) => (after(), v));
      after();
      return r;
    };
    try {
      const r = await this.#b.guaranteedUpdate(key, { ...opts, tryUpdate });
      // Unchanged: upstream sends no transaction either.
      if (!r.noop) (phase ?? this.#get).record(start, false);
      return r;
    } catch (e) {
      if (inCallback) throw e;
      return this.#fail(e, phase ?? this.#get, start);
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<StoredObject> {
    let phase: OperationSeries | undefined; // undefined: still reading
    let start = performance.now();
    let inCallback = false;
    const after = () => {
      inCallback = false;
      start = performance.now();
    };
    const validate = opts.validateDeletion;
    const validateDeletion = (current: StoredObject): void | Promise<void> => {
      if (!phase) this.#get.record(start, false);
      phase = this.#m.op('delete');
      inCallback = true;
      const r = validate?.(current);
      if (isPromise(r)) return r.then(after);
      after();
    };
    try {
      const r = await this.#b.delete(key, opts.ignoreStoreReadError ? { validateDeletion, ignoreStoreReadError: true } : { validateDeletion });
      (phase ?? this.#get).record(start, false);
      return r;
    } catch (e) {
      if (inCallback) throw e;
      return this.#fail(e, phase ?? this.#get, start);
    }
  }

  watch(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    const received = this.#m.eventsReceived;
    const bookmarks = this.#m.bookmarks;
    const onProgress = handler.onProgress;
    return this.#b.watch(prefix, fromRV, {
      onEvent: (ev) => {
        received.value++;
        handler.onEvent(ev);
      },
      ...(onProgress
        ? {
            onProgress: (rv: number) => {
              bookmarks.value++;
              onProgress(rv);
            },
          }
        : {}),
      onError: (err) => {
        if (err instanceof StorageError && err.code === 'Corrupt') this.#m.decodeError();
        handler.onError(err);
      },
    });
  }

  async count(prefix: string): Promise<number> {
    const op = this.#m.op('listWithCount');
    const start = performance.now();
    try {
      const r = await this.#b.count(prefix);
      op.record(start, false);
      return r;
    } catch (e) {
      return this.#fail(e, op, start);
    }
  }

  async currentRevision(): Promise<number> {
    const op = this.#m.op('getCurrentResourceVersion');
    const start = performance.now();
    try {
      const r = await this.#b.currentRevision();
      op.record(start, false);
      return r;
    } catch (e) {
      return this.#fail(e, op, start);
    }
  }

  // Compaction is the compactor's (upstream: etcd's own, no operation label); readiness is /readyz's.
  compact(rv: number): Promise<void> {
    return this.#b.compact(rv);
  }

  compactedRevision(): number {
    return this.#b.compactedRevision();
  }

  readinessCheck(): Promise<void> {
    return this.#b.readinessCheck();
  }

  close(): Promise<void> {
    return this.#b.close();
  }
}
