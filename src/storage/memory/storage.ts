/**
 * A Storage held in memory: the full contract (global revisions, history for lists at a revision and watch
 * replay, compaction, TTL with an injectable clock, no-op updates, stored bytes without their resourceVersion
 * passing through the value transformer), nothing durable. It exists for the generic store's unit tests and any
 * test that wants storage without files; it passes the same conformance suite as SQLite. Written by hand because
 * it is the contract itself, kept as plain as the contract allows.
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
import { StoredValues } from '../stored-values.ts';
import { identityTransformer, isPromise, type Transformer } from '../value/index.ts';

export interface MemoryStorageOptions {
  codec: Codec;
  /** What values pass through on their way in and out (default: identity). */
  transformer?: Transformer;
  /** The TTL clock (epoch ms); tests move it by hand. */
  now?(): number;
  /** How often expired objects are looked for (ms). */
  sweepIntervalMs?: number;
}

/** One change as kept: its served object, the bytes "in storage" (transformed, without resourceVersion). */
interface Version extends StoredObject {
  readonly type: StorageEventType;
  readonly data: Buffer;
  /** The version before this change (MODIFIED and DELETED). */
  readonly prev?: Version;
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
  readonly #values: StoredValues;
  readonly #now: () => number;
  /** Every change still kept, in revision order (compaction drops the older ones). */
  readonly #log: Version[] = [];
  readonly #current = new Map<string, Version>();
  readonly #watchers = new Set<Watcher>();
  readonly #sweeper: NodeJS.Timeout;
  #rev = 0;
  #compacted = 0;
  #closed = false;

  constructor(opts: MemoryStorageOptions) {
    this.#codec = opts.codec;
    this.#values = new StoredValues(opts.transformer ?? identityTransformer, opts.codec);
    this.#now = opts.now ?? Date.now;
    this.#sweeper = setInterval(() => void this.sweepExpired(), opts.sweepIntervalMs ?? 100);
    this.#sweeper.unref();
  }

  async get(key: string): Promise<StoredObject | null> {
    this.#checkOpen();
    const v = this.#current.get(key);
    return v ? this.#read(v) : null;
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
    const corrupt: StorageError[] = [];
    let more = false;
    let i = 0;
    for (; i < keys.length; i++) {
      let o: StoredObject;
      try {
        o = await this.#read(state.get(keys[i]!)!);
      } catch (e) {
        if (opts.collectCorrupt && e instanceof StorageError && e.code === 'Corrupt') {
          corrupt.push(e);
          continue;
        }
        throw e;
      }
      if (opts.predicate && !opts.predicate(o)) continue;
      if (opts.limit && items.length === opts.limit) {
        more = true;
        break;
      }
      items.push(o);
    }
    const out: ListResult = { items, rv, more, fetched: more ? i + 1 : i };
    if (!opts.predicate) out.remaining = more ? keys.length - i : 0;
    if (opts.collectCorrupt) out.corrupt = corrupt;
    return out;
  }

  async create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredObject> {
    this.#checkOpen();
    if (this.#current.has(key)) throw new StorageError('KeyExists', key, `key already exists: ${key}`);
    return this.#write(key, 'ADDED', obj, this.#plain(obj), ttlSeconds, undefined);
  }

  async guaranteedUpdate(key: string, opts: GuaranteedUpdateOptions): Promise<GuaranteedUpdateResult> {
    for (;;) {
      this.#checkOpen();
      const version = this.#current.get(key) ?? null;
      if (!version && !opts.ignoreNotFound) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      const cur = version ? await this.#values.readFull(key, version.rv, version.data) : null;
      const { object, ttlSeconds } = await opts.tryUpdate(version && cur ? { ...this.#served(version), value: cur.value } : null);
      this.#checkOpen();
      // Someone wrote the key while the callback ran: decide again on the new state.
      if ((this.#current.get(key) ?? null) !== version) continue;
      const plain = this.#plain(object);
      if (version && cur && !cur.stale && plain.equals(cur.plain)) {
        object.metadata.resourceVersion = String(version.rv);
        return { stored: { ...this.#served(version), value: cur.value, object }, created: false, noop: true };
      }
      try {
        const stored = await this.#write(key, version ? 'MODIFIED' : 'ADDED', object, plain, ttlSeconds, version ?? undefined);
        return { stored, created: !version, noop: false };
      } catch (e) {
        if (e instanceof ConcurrentWrite) continue;
        throw e;
      }
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<StoredObject> {
    for (;;) {
      this.#checkOpen();
      const version = this.#current.get(key);
      if (!version) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      let cur;
      try {
        cur = await this.#values.readFull(key, version.rv, version.data);
      } catch (e) {
        if (!(opts.ignoreStoreReadError && e instanceof StorageError && e.code === 'Corrupt')) throw e;
        await opts.validateDeletion?.({ ...this.#served(version), value: Buffer.alloc(0) });
        this.#checkOpen();
        if (this.#current.get(key) !== version) continue;
        return this.#deleteUnreadable(key, version);
      }
      await opts.validateDeletion?.({ ...this.#served(version), value: cur.value });
      this.#checkOpen();
      if (this.#current.get(key) !== version) continue;
      // Watchers get the last state at the deletion revision.
      try {
        return await this.#write(key, 'DELETED', this.#codec.decode(cur.value), cur.plain, undefined, version);
      } catch (e) {
        if (e instanceof ConcurrentWrite) continue;
        throw e;
      }
    }
  }

  watch(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    this.#checkOpen();
    const w: Watcher = { prefix, handler, afterRV: fromRV, stopped: false };
    // Delivered from the next turn on, as a backend reading its log would: the caller has its handle first.
    queueMicrotask(() => void this.#replay(w, fromRV));
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
      if (o.expiresAt === undefined || o.expiresAt > now || this.#current.get(key) !== o) continue;
      const cur = await this.#values.readFull(key, o.rv, o.data);
      if (this.#current.get(key) !== o) continue;
      await this.#write(key, 'DELETED', this.#codec.decode(cur.value), cur.plain, undefined, o);
      n++;
    }
    return n;
  }

  /**
   * Stores a change: `plain` (the object encoded without resourceVersion) through the transformer, then — in one
   * synchronous step, so revisions are issued in write order — a revision, the log entry and the watchers' events.
   */
  async #write(key: string, type: StorageEventType, object: KubeObject, plain: Buffer, ttlSeconds: number | undefined, prev: Version | undefined): Promise<StoredObject> {
    const t = this.#values.toStorage(key, plain);
    const data = isPromise(t) ? await t : t;
    this.#checkOpen();
    if (type === 'ADDED' && this.#current.has(key)) throw new StorageError('KeyExists', key, `key already exists: ${key}`);
    if (type !== 'ADDED' && this.#current.get(key) !== prev) throw new ConcurrentWrite();
    const rv = ++this.#rev;
    object.metadata.resourceVersion = String(rv);
    const value = this.#values.served(key, rv, plain);
    const expiresAt = ttlSeconds ? this.#now() + ttlSeconds * 1000 : undefined;
    const v: Version = { key, rv, value, object, type, data, ...(expiresAt !== undefined ? { expiresAt } : {}), ...(prev ? { prev } : {}) };
    this.#log.push(v);
    if (type === 'DELETED') this.#current.delete(key);
    else this.#current.set(key, v);
    for (const w of this.#watchers) this.#deliver(w, v, v.value, prev?.value);
    return this.#served(v);
  }

  /** The unsafe delete of a value that cannot be read: the row goes unread; watchers get a DELETED without a value. */
  #deleteUnreadable(key: string, prev: Version): StoredObject {
    const rv = ++this.#rev;
    const v: Version = { key, rv, value: Buffer.alloc(0), type: 'DELETED', data: prev.data, prev };
    this.#log.push(v);
    this.#current.delete(key);
    for (const w of this.#watchers) this.#deliver(w, v, v.value, undefined);
    return this.#served(v);
  }

  /** The object as handed out: served bytes read back through the transformer. */
  async #read(v: Version): Promise<StoredObject> {
    const r = this.#values.read(v.key, v.rv, v.data);
    return { ...this.#served(v), value: isPromise(r) ? await r : r };
  }

  #served(v: Version): StoredObject {
    return v.expiresAt === undefined ? { key: v.key, rv: v.rv, value: v.value } : { key: v.key, rv: v.rv, value: v.value, expiresAt: v.expiresAt };
  }

  /** Kept history after `fromRV` (read back through the transformer), then live: no change missed or repeated. */
  async #replay(w: Watcher, fromRV: number): Promise<void> {
    if (w.stopped) return;
    if (this.#compacted > 0 && fromRV < this.#compacted) {
      w.stopped = true;
      w.handler.onError(new StorageError('Expired', w.prefix, `revision ${fromRV} has been compacted (compacted revision ${this.#compacted})`, fromRV));
      return;
    }
    // The log may grow while a read waits: keep reading it until it is caught up in one synchronous step.
    let i = this.#log.findIndex((v) => v.rv > fromRV);
    if (i < 0) i = this.#log.length;
    while (i < this.#log.length) {
      const v = this.#log[i++]!;
      if (!v.key.startsWith(w.prefix)) continue;
      try {
        const r = this.#values.read(v.key, v.rv, v.data);
        const p = v.prev ? this.#values.read(v.prev.key, v.prev.rv, v.prev.data) : undefined;
        this.#deliver(w, v, isPromise(r) ? await r : r, isPromise(p) ? await p : p);
      } catch (err) {
        w.stopped = true;
        w.handler.onError(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (w.stopped) return;
    }
    this.#progress(w, this.#rev);
    if (!w.stopped) this.#watchers.add(w);
  }

  /** The revision moved on with nothing for `w` (see WatchHandler.onProgress). */
  #progress(w: Watcher, rv: number): void {
    if (w.stopped || rv <= w.afterRV) return;
    w.afterRV = rv;
    w.handler.onProgress?.(rv);
  }

  #deliver(w: Watcher, v: Version, value: Buffer, prevValue: Buffer | undefined): void {
    if (!v.key.startsWith(w.prefix)) return this.#progress(w, v.rv);
    if (w.stopped || v.rv <= w.afterRV) return;
    w.afterRV = v.rv;
    const ev: StorageEvent = { type: v.type, key: v.key, rv: v.rv, value, ...(prevValue ? { prevValue } : {}), ...(v.expiresAt !== undefined ? { expiresAt: v.expiresAt } : {}) };
    w.handler.onEvent(ev);
  }

  /** The objects as they were at revision `rv` (which is above the compacted revision). */
  #stateAt(rv: number): Map<string, Version> {
    const state = new Map(this.#current);
    // Undo the kept changes after rv, newest first.
    for (let i = this.#log.length - 1; i >= 0 && this.#log[i]!.rv > rv; i--) {
      const v = this.#log[i]!;
      if (v.prev) state.set(v.key, v.prev);
      else state.delete(v.key);
    }
    return state;
  }

  /** The object encoded as stored: without its resourceVersion (upstream's PrepareObjectForStorage). */
  #plain(object: KubeObject): Buffer {
    delete object.metadata.resourceVersion;
    return this.#codec.encode(object);
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError('Internal', '', 'storage is closed');
  }
}

/** The key was written by someone else while a transformer answered asynchronously: decide again. */
class ConcurrentWrite extends Error {}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
