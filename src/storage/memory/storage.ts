/**
 * A Storage held in memory: the full contract (global revisions, history for lists at a revision and watch
 * replay, compaction, TTL with an injectable clock, no-op updates), nothing durable. It exists for the generic
 * store's unit tests and any test that wants storage without files; it passes the same conformance suite as
 * SQLite. Written by hand because it is the contract itself, kept as plain as the contract allows.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import {
  type Codec,
  type DeleteOptions,
  type GuaranteedUpdateOptions,
  type GuaranteedUpdateResult,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type StorageEventType,
  type StoredObject,
  StorageError,
  type Watch,
  type WatchHandler,
} from '../interface.ts';

export interface MemoryStorageOptions {
  codec: Codec;
  /** The TTL clock (epoch ms); tests move it by hand. */
  now?(): number;
  /** How often expired objects are looked for (ms). */
  sweepIntervalMs?: number;
}

interface Version extends StoredObject {
  readonly type: StorageEventType;
  /** The value before this change (MODIFIED and DELETED). */
  readonly prev?: StoredObject;
}

interface Watcher {
  prefix: string;
  handler: WatchHandler;
  /** Changes after this revision are delivered. */
  afterRV: number;
  stopped: boolean;
}

export class MemoryStorage implements Storage {
  readonly name = 'memory';
  readonly #codec: Codec;
  readonly #now: () => number;
  /** Every change still kept, in revision order (compaction drops the older ones). */
  readonly #log: Version[] = [];
  readonly #current = new Map<string, StoredObject>();
  readonly #watchers = new Set<Watcher>();
  readonly #sweeper: NodeJS.Timeout;
  #rev = 0;
  #compacted = 0;
  #closed = false;

  constructor(opts: MemoryStorageOptions) {
    this.#codec = opts.codec;
    this.#now = opts.now ?? Date.now;
    this.#sweeper = setInterval(() => void this.sweepExpired(), opts.sweepIntervalMs ?? 100);
    this.#sweeper.unref();
  }

  async get(key: string): Promise<StoredObject | null> {
    this.#checkOpen();
    return this.#current.get(key) ?? null;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.#checkOpen();
    const rv = opts.rv ?? this.#rev;
    if (rv > this.#rev) throw new StorageError('TooLargeResourceVersion', prefix, `revision ${rv} is newer than the current revision ${this.#rev}`, rv);
    if (opts.rv !== undefined && this.#compacted > 0 && rv <= this.#compacted) {
      throw new StorageError('Expired', prefix, `revision ${rv} has been compacted (compacted revision ${this.#compacted})`, rv);
    }
    const state = rv === this.#rev ? this.#current : this.#stateAt(rv);
    const keys = [...state.keys()].filter((k) => k.startsWith(prefix) && (!opts.startKey || k >= opts.startKey)).sort(byteOrder);
    const items: StoredObject[] = [];
    let more = false;
    let i = 0;
    for (; i < keys.length; i++) {
      const o = state.get(keys[i]!)!;
      if (opts.predicate && !opts.predicate(o)) continue;
      if (opts.limit && items.length === opts.limit) {
        more = true;
        break;
      }
      items.push(o);
    }
    const out: ListResult = { items, rv, more };
    if (!opts.predicate) out.remaining = more ? keys.length - i : 0;
    return out;
  }

  async create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredObject> {
    this.#checkOpen();
    if (this.#current.has(key)) throw new StorageError('KeyExists', key, `key already exists: ${key}`);
    return this.#write(key, 'ADDED', obj, ttlSeconds, undefined);
  }

  async guaranteedUpdate(key: string, opts: GuaranteedUpdateOptions): Promise<GuaranteedUpdateResult> {
    for (;;) {
      this.#checkOpen();
      const cur = this.#current.get(key) ?? null;
      if (!cur && !opts.ignoreNotFound) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      const { object, ttlSeconds } = await opts.tryUpdate(cur);
      this.#checkOpen();
      // Someone wrote the key while the callback ran: decide again on the new state.
      if ((this.#current.get(key) ?? null) !== cur) continue;
      if (cur && this.#encodeAt(object, cur.rv).equals(cur.value)) return { stored: { ...cur, object }, created: false, noop: true };
      const stored = this.#write(key, cur ? 'MODIFIED' : 'ADDED', object, ttlSeconds, cur ?? undefined);
      return { stored, created: !cur, noop: false };
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<StoredObject> {
    for (;;) {
      this.#checkOpen();
      const cur = this.#current.get(key);
      if (!cur) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      await opts.validateDeletion?.(cur);
      this.#checkOpen();
      if (this.#current.get(key) !== cur) continue;
      // Watchers get the last state at the deletion revision.
      return this.#write(key, 'DELETED', this.#codec.decode(cur.value), undefined, cur);
    }
  }

  watch(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    this.#checkOpen();
    const w: Watcher = { prefix, handler, afterRV: fromRV, stopped: false };
    // Delivered from the next turn on, as a backend reading its log would: the caller has its handle first.
    queueMicrotask(() => {
      if (w.stopped) return;
      if (this.#compacted > 0 && fromRV < this.#compacted) {
        w.stopped = true;
        handler.onError(new StorageError('Expired', prefix, `revision ${fromRV} has been compacted (compacted revision ${this.#compacted})`, fromRV));
        return;
      }
      for (const v of this.#log) if (v.rv > fromRV) this.#deliver(w, v);
      this.#progress(w, this.#rev);
      if (!w.stopped) this.#watchers.add(w);
    });
    return {
      stop: () => {
        w.stopped = true;
        this.#watchers.delete(w);
      },
    };
  }

  async count(prefix: string): Promise<number> {
    this.#checkOpen();
    let n = 0;
    for (const k of this.#current.keys()) if (k.startsWith(prefix)) n++;
    return n;
  }

  async currentRevision(): Promise<number> {
    this.#checkOpen();
    return this.#rev;
  }

  async compact(rv: number): Promise<void> {
    this.#checkOpen();
    if (rv > this.#rev) throw new StorageError('TooLargeResourceVersion', '', `cannot compact to ${rv}: current revision is ${this.#rev}`, rv);
    if (rv <= this.#compacted) return;
    this.#compacted = rv;
    // Versions at or below rv are no longer readable by revision; the current state stays in #current.
    let drop = 0;
    while (drop < this.#log.length && this.#log[drop]!.rv <= rv) drop++;
    this.#log.splice(0, drop);
  }

  compactedRevision(): number {
    return this.#compacted;
  }

  async readinessCheck(): Promise<void> {
    this.#checkOpen();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    const err = new StorageError('Internal', '', 'storage closed');
    for (const w of this.#watchers) {
      w.stopped = true;
      w.handler.onError(err);
    }
    this.#watchers.clear();
  }

  /** Deletes what has expired by the clock; resolves with the number of deletions. */
  async sweepExpired(): Promise<number> {
    if (this.#closed) return 0;
    const now = this.#now();
    let n = 0;
    for (const [key, o] of [...this.#current]) {
      if (o.expiresAt !== undefined && o.expiresAt <= now && this.#current.get(key) === o) {
        this.#write(key, 'DELETED', this.#codec.decode(o.value), undefined, o);
        n++;
      }
    }
    return n;
  }

  #write(key: string, type: StorageEventType, object: KubeObject, ttlSeconds: number | undefined, prev: StoredObject | undefined): StoredObject {
    const rv = ++this.#rev;
    const value = this.#encodeAt(object, rv);
    const expiresAt = ttlSeconds ? this.#now() + ttlSeconds * 1000 : undefined;
    const stored: StoredObject = expiresAt === undefined ? { key, rv, value, object } : { key, rv, value, object, expiresAt };
    const v: Version = { ...stored, type, ...(prev ? { prev } : {}) };
    this.#log.push(v);
    if (type === 'DELETED') this.#current.delete(key);
    else this.#current.set(key, stored);
    for (const w of this.#watchers) this.#deliver(w, v);
    return stored;
  }

  /** The revision moved on with nothing for `w` (see WatchHandler.onProgress). */
  #progress(w: Watcher, rv: number): void {
    if (w.stopped || rv <= w.afterRV) return;
    w.afterRV = rv;
    w.handler.onProgress?.(rv);
  }

  #deliver(w: Watcher, v: Version): void {
    if (!v.key.startsWith(w.prefix)) return this.#progress(w, v.rv);
    if (w.stopped || v.rv <= w.afterRV) return;
    w.afterRV = v.rv;
    const ev: StorageEvent = { type: v.type, key: v.key, rv: v.rv, value: v.value, ...(v.prev ? { prevValue: v.prev.value } : {}), ...(v.expiresAt !== undefined ? { expiresAt: v.expiresAt } : {}) };
    w.handler.onEvent(ev);
  }

  /** The objects as they were at revision `rv` (which is above the compacted revision). */
  #stateAt(rv: number): Map<string, StoredObject> {
    const state = new Map(this.#current);
    // Undo the kept changes after rv, newest first.
    for (let i = this.#log.length - 1; i >= 0 && this.#log[i]!.rv > rv; i--) {
      const v = this.#log[i]!;
      if (v.prev) state.set(v.key, v.prev);
      else state.delete(v.key);
    }
    return state;
  }

  #encodeAt(object: KubeObject, rv: number): Buffer {
    object.metadata.resourceVersion = String(rv);
    return this.#codec.encode(object);
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError('Internal', '', 'storage is closed');
  }
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
