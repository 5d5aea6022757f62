/**
 * The etcd3 backend (`--storage-backend=etcd3`), shaped like upstream's pkg/storage/etcd3/store.go: every key of the
 * Storage interface lives under `--etcd-prefix` (default `/registry`), etcd's revision is the resourceVersion (an
 * object's mod_revision; a list's header revision), and every write is one etcd transaction guarded on the key's
 * revision, so concurrent writers (other replicas included) never overwrite each other's changes:
 *  - create: put if create_revision == 0;
 *  - guaranteedUpdate and delete: read, decide, then write if mod_revision is still what was read; else take the
 *    state the failed transaction read back and decide again (optimistic concurrency, as upstream's GuaranteedUpdate);
 *  - TTL: the key is attached to a lease (lease-manager.ts), re-attached on every write that gives a TTL.
 * Values are stored without resourceVersion and through the value transformer, with the etcd key as authenticated
 * data (upstream binds a value to its full etcd path); values handed out carry their revision (../stored-values.ts).
 * Watches: watcher.ts.
 *
 * Compaction. etcd keeps revision R readable after compacting at R; the interface refuses reads at R (lists at or
 * below the compacted revision, watches from below it), so those bounds are applied here from the highest compacted
 * revision this process knows: its own compactions and, from the compactor (compact.ts), the other replicas'.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type {
  Codec,
  DeleteOptions,
  GuaranteedUpdateOptions,
  GuaranteedUpdateResult,
  ListOptions,
  ListResult,
  Storage,
  StoredObject,
  Watch,
  WatchHandler,
} from '../interface.ts';
import { StorageError } from '../interface.ts';
import { StoredValues, isCorrupt, type ReadValue } from '../stored-values.ts';
import { identityTransformer } from '../value/identity.ts';
import { isPromise, type Transformer } from '../value/transformer.ts';
import { EtcdClient, ErrCompacted, ErrFutureRev, ErrLeaseNotFound, isGrpcError, type EtcdClientOptions } from './client.ts';
import { LeaseManager } from './lease-manager.ts';
import { CompareResult, CompareTarget, num, type KeyValue, type LeaseId, type RangeRequest, type RangeResponse, type TxnRequest, type TxnResponse } from './proto.ts';
import { WatchHub, type KeySpace, type OwnWrite } from './watcher.ts';

export interface EtcdStorageOptions extends EtcdClientOptions {
  codec: Codec;
  /** --etcd-prefix: where the keys live in etcd (default /registry). */
  prefix?: string;
  /** Applied to every value on its way into and out of etcd, keyed by the etcd key (default: identity). */
  transformer?: Transformer;
  /** --lease-reuse-duration-seconds (default 60). */
  leaseReuseDurationSeconds?: number;
  /** Observes the number of objects each lease had when the next one was granted (etcd_lease_object_counts). */
  onLeaseRetired?: (objects: number) => void;
  /** Counts the changes the storage watches received (apiserver_storage_events_received_total). */
  onEventsReceived?: (n: number) => void;
  /** An existing client to share (several resources' storages on one etcd); not closed by close(). */
  client?: EtcdClient;
  /**
   * Whether etcd's watch progress answers are ordered after queued events (etcd 3.4.31+ / 3.5.13+; see
   * progressAnswersEarly in src/cmd/etcd-storage.ts). Default false: unknown is taken as the worst, as upstream. When false, consistent reads go to etcd (a quorum
   * read) instead of the watch cache, as upstream does on such versions, and progress answers still used to bring
   * a cache up to a given revision need confirmation (./watcher.ts).
   */
  progressAnswersOrdered?: boolean;
}

/** Page size of a filtered list's reads from etcd (at least the requested limit). */
const LIST_PAGE_MIN = 100;

/** The etcd key just after every key starting with `prefix` (etcd's "range_end = prefix + 1"). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  // All 0xff: no key is greater; etcd reads "\0" as "to the end of the key space".
  return Buffer.from([0]);
}

/** The state of a key as the write path saw it: null when absent. */
interface Current {
  stored: StoredObject;
  plain: Buffer;
  stale: boolean;
  /** The value could not be read and was taken as it is (only for DeleteOptions.ignoreStoreReadError). */
  unreadable?: boolean;
}

interface KeyState {
  current: Current | null;
  /** mod_revision of the key (0 when absent): what the next transaction compares against. */
  modRev: number;
}

export class EtcdStorage implements Storage {
  /** Upstream's name: storage spans read `Create etcd3`, `GuaranteedUpdate etcd3`, … (traced.ts). */
  readonly name = 'etcd3';
  readonly consistentReadsFromCache: boolean;
  readonly client: EtcdClient;
  readonly prefix: string;
  readonly leases: LeaseManager;
  readonly #ownsClient: boolean;
  readonly #codec: Codec;
  readonly #values: StoredValues;
  readonly #hub: WatchHub;
  readonly #keys: KeySpace;
  #compacted = 0;
  #closed = false;
  /** Calls under way: close() lets them finish (a write already issued is not cut off). */
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(opts: EtcdStorageOptions) {
    this.client = opts.client ?? new EtcdClient(opts);
    this.#ownsClient = !opts.client;
    this.prefix = (opts.prefix ?? '/registry').replace(/\/+$/, '');
    this.#codec = opts.codec;
    this.#values = new StoredValues(opts.transformer ?? identityTransformer, opts.codec);
    const prefix = this.prefix;
    const strip = Buffer.byteLength(prefix);
    this.#keys = {
      toEtcd: (key) => Buffer.from(prefix + key),
      fromEtcd: (k) => Buffer.from(k.buffer, k.byteOffset, k.byteLength).toString('utf8', strip),
      rangeEnd: prefixEnd,
    };
    this.leases = new LeaseManager(this.client, {
      ...(opts.leaseReuseDurationSeconds !== undefined ? { reuseDurationSeconds: opts.leaseReuseDurationSeconds } : {}),
      ...(opts.onLeaseRetired ? { onLeaseRetired: opts.onLeaseRetired } : {}),
    });
    this.consistentReadsFromCache = opts.progressAnswersOrdered ?? false;
    this.#hub = new WatchHub(this.client, this.#keys, this.#values, this.consistentReadsFromCache, opts.onEventsReceived);
  }

  /** Open watches (tests and metrics). */
  get watchers(): number {
    return this.#hub.size;
  }

  get(key: string): Promise<StoredObject | null> {
    return this.#run(async () => {
      const st = await this.#read(key);
      return st.current ? st.current.stored : null;
    });
  }

  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.#run(() => this.#list(prefix, opts));
  }

  create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredObject> {
    return this.#run(async () => {
      delete obj.metadata.resourceVersion;
      const plain = this.#codec.encode(obj);
      const ek = this.#keys.toEtcd(key);
      const data = await this.#values.toStorage(key, plain, ek.toString());
      const own = this.#hub.expectOwnWrite(key, data, plain, obj);
      let res: TxnResponse;
      try {
        res = await this.#putTxn(key, ttlSeconds, (lease) => ({
          compare: [{ result: CompareResult.EQUAL, target: CompareTarget.CREATE, key: ek, create_revision: 0 }],
          success: [{ request_put: { key: ek, value: data, ...(lease ? { lease } : {}) } }],
        }));
      } catch (err) {
        this.#hub.forgetOwnWrite(key, own);
        throw err;
      }
      if (!res.succeeded) {
        this.#hub.forgetOwnWrite(key, own);
        throw new StorageError('KeyExists', key, `key already exists: ${key}`);
      }
      const rv = num(res.header.revision);
      return this.#stamp(key, obj, plain, rv, ttlSeconds, own);
    });
  }

  guaranteedUpdate(key: string, opts: GuaranteedUpdateOptions): Promise<GuaranteedUpdateResult> {
    return this.#run(async () => {
      const ek = this.#keys.toEtcd(key);
      let st = await this.#read(key);
      for (;;) {
        const cur = st.current;
        if (!cur && !opts.ignoreNotFound) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
        const r = opts.tryUpdate(cur ? cur.stored : null);
        const { object, ttlSeconds } = isPromise(r) ? await r : r;
        this.#checkOpen();
        delete object.metadata.resourceVersion;
        const plain = this.#codec.encode(object);
        // Unchanged, as upstream decides it: the same stored bytes, unless the transformer wants them rewritten. The
        // state may be stale by now; upstream answers from it all the same (the caller saw a consistent object).
        if (cur && !cur.stale && plain.equals(cur.plain)) {
          object.metadata.resourceVersion = String(cur.stored.rv);
          return { stored: { ...cur.stored, object }, created: false, noop: true };
        }
        const data = await this.#values.toStorage(key, plain, ek.toString());
        const own = this.#hub.expectOwnWrite(key, data, plain, object);
        let res: TxnResponse;
        try {
          res = await this.#putTxn(key, ttlSeconds, (lease) => ({
            compare: [{ result: CompareResult.EQUAL, target: CompareTarget.MOD, key: ek, mod_revision: st.modRev }],
            success: [{ request_put: { key: ek, value: data, ...(lease ? { lease } : {}) } }],
            failure: [{ request_range: { key: ek } }],
          }));
        } catch (err) {
          this.#hub.forgetOwnWrite(key, own);
          throw err;
        }
        if (res.succeeded) {
          const rv = num(res.header.revision);
          return { stored: this.#stamp(key, object, plain, rv, ttlSeconds, own), created: !cur, noop: false };
        }
        this.#hub.forgetOwnWrite(key, own);
        // Someone else wrote the key: decide again on the state the transaction read back.
        st = await this.#stateOf(key, res.responses[0]?.response_range?.kvs[0]);
      }
    });
  }

  /**
   * With `ignoreStoreReadError` a value that cannot be read back is deleted unread (upstream's unsafe delete, and
   * what a lease does to an expired one): the validator gets its key and revision with an empty value, the same
   * revision guard keeps a concurrent write from being deleted unseen, and the answer carries an empty value. The
   * DELETED change watchers get has an empty value too (watcher.ts: its previous value does not read).
   */
  delete(key: string, opts: DeleteOptions = {}): Promise<StoredObject> {
    return this.#run(async () => {
      const ek = this.#keys.toEtcd(key);
      const lenient = opts.ignoreStoreReadError === true;
      let st = await this.#read(key, lenient);
      for (;;) {
        const cur = st.current;
        if (!cur) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
        if (opts.validateDeletion) {
          const r = opts.validateDeletion(cur.stored);
          if (isPromise(r)) await r;
          this.#checkOpen();
        }
        const res = await this.#txn(key, {
          compare: [{ result: CompareResult.EQUAL, target: CompareTarget.MOD, key: ek, mod_revision: st.modRev }],
          success: [{ request_delete_range: { key: ek } }],
          failure: [{ request_range: { key: ek } }],
        });
        if (res.succeeded) {
          const rv = num(res.header.revision);
          if (cur.unreadable) return { key, rv, value: Buffer.alloc(0) };
          const value = this.#values.served(key, rv, cur.plain);
          return { key, rv, value, object: this.#codec.decode(value) };
        }
        st = await this.#stateOf(key, res.responses[0]?.response_range?.kvs[0], lenient);
      }
    });
  }

  watch(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    if (this.#closed) {
      queueMicrotask(() => handler.onError(new StorageError('Internal', prefix, 'storage is closed')));
      return { stop() {} };
    }
    // etcd still serves the compacted revision itself; the interface does not (see the top of the file).
    if (fromRV < this.#compacted) {
      let stopped = false;
      queueMicrotask(() => {
        if (!stopped) handler.onError(new StorageError('Expired', prefix, `revision ${fromRV} has been compacted (compacted revision ${this.#compacted})`, fromRV));
      });
      return { stop: () => void (stopped = true) };
    }
    return this.#hub.add(prefix, fromRV, handler);
  }

  count(prefix: string): Promise<number> {
    return this.#run(async () => {
      const key = this.#keys.toEtcd(prefix);
      const res = await this.#range(prefix, { key, range_end: prefixEnd(key), count_only: true });
      return num(res.count);
    });
  }

  /**
   * The current revision, by a quorum read (upstream's getCurrentResourceVersionFromStorage). A consistent read
   * waits for its watch cache to reach this revision: ask etcd for watch progress so that it does soon even when
   * the revision moved through other resources' writes (upstream's RequestWatchProgress).
   */
  currentRevision(): Promise<number> {
    return this.#run(async () => {
      const key = this.#keys.toEtcd('/');
      const res = await this.#range('', { key, range_end: prefixEnd(key), count_only: true, limit: 1 });
      const rv = num(res.header.revision);
      if (this.#hub.behind(rv)) this.#hub.requestProgress();
      return rv;
    });
  }

  compact(rv: number): Promise<void> {
    return this.#run(async () => {
      if (rv <= this.#compacted) return;
      const head = await this.currentRevision();
      if (rv > head) throw new StorageError('TooLargeResourceVersion', '', `cannot compact to ${rv}: current revision is ${head}`, rv);
      try {
        await this.client.call('compact', { revision: rv });
      } catch (err) {
        // Someone (another replica) compacted at or past rv already: the history is gone either way.
        if (!(isGrpcError(err) && err.details === ErrCompacted)) throw this.#error('', err);
      }
      this.noteCompacted(rv);
    });
  }

  /** Records a compaction done elsewhere (the compactor's view of other replicas' compactions). */
  noteCompacted(rv: number): void {
    if (rv > this.#compacted) this.#compacted = rv;
  }

  compactedRevision(): number {
    return this.#compacted;
  }

  async readinessCheck(): Promise<void> {
    this.#checkOpen();
    await this.currentRevision();
  }

  /** etcd's database size as the current endpoint reports it (apiserver_storage_size_bytes). */
  async dbSize(timeoutMs = 2000): Promise<number> {
    this.#checkOpen();
    const res = await this.client.call('status', {}, timeoutMs);
    return num(res.dbSize);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#hub.closeAll(new StorageError('Internal', '', 'storage closed'));
    await Promise.allSettled([...this.#inflight]);
    if (this.#ownsClient) this.client.close();
  }

  // ---- internals ----

  async #list(prefix: string, opts: ListOptions): Promise<ListResult> {
    if (opts.rv !== undefined && this.#compacted > 0 && opts.rv <= this.#compacted) {
      throw new StorageError('Expired', prefix, `revision ${opts.rv} has been compacted (compacted revision ${this.#compacted})`, opts.rv);
    }
    const base = this.#keys.toEtcd(prefix);
    const end = prefixEnd(base);
    let from = base;
    if (opts.startKey) {
      const s = this.#keys.toEtcd(opts.startKey);
      if (Buffer.compare(s, base) > 0) from = s;
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const pred = opts.predicate;
    const collect = opts.collectCorrupt === true;
    const corrupt: StorageError[] = [];
    let rv = opts.rv;
    const items: StoredObject[] = [];
    let fetched = 0;
    const done = (r: ListResult): ListResult => (collect ? { ...r, corrupt } : r);
    // Without a predicate one range answers: the limit is etcd's, `count` gives what remains (values collected as
    // corrupt do not count towards the limit: the next page, at the same revision, makes up for them).
    // With one, pages are read at the list's revision until `limit` matches are found, and on until one more
    // match shows whether more follow (the interface's `more` counts matching items only).
    const page = pred ? Math.max(limit, LIST_PAGE_MIN) : limit;
    for (;;) {
      const res = await this.#range(prefix, { key: from, range_end: end, ...(page ? { limit: page } : {}), ...(rv !== undefined ? { revision: rv } : {}) }, rv);
      rv ??= num(res.header.revision);
      fetched += res.kvs.length;
      for (let i = 0; i < res.kvs.length; i++) {
        const kv = res.kvs[i]!;
        const key = this.#keys.fromEtcd(kv.key);
        const modRev = num(kv.mod_revision);
        let value: Buffer;
        try {
          const v = this.#values.read(key, modRev, buf(kv.value), bufKey(kv));
          value = isPromise(v) ? await v : v;
        } catch (err) {
          // collectCorrupt: left out and reported (what lets a watch cache start while one object is unreadable).
          if (collect && isCorrupt(err)) {
            corrupt.push(err);
            continue;
          }
          throw err;
        }
        const so: StoredObject = { key, rv: modRev, value };
        if (pred && !pred(so)) continue;
        if (limit && items.length === limit) {
          // Only after corrupt values made a page short: this item begins what remains.
          return done(pred ? { items, rv, more: true, fetched } : { items, rv, more: true, remaining: num(res.count) - i, fetched });
        }
        items.push(so);
      }
      if (!pred && (!limit || items.length === limit || !res.more || res.kvs.length === 0)) {
        const remaining = num(res.count) - res.kvs.length;
        return done({ items, rv, more: res.more, remaining, fetched });
      }
      if (!res.more || res.kvs.length === 0) return done({ items, rv, more: false, fetched });
      from = Buffer.concat([buf(res.kvs[res.kvs.length - 1]!.key), Buffer.from([0])]);
    }
  }

  /** The current state of `key` (a quorum read); `lenient`: a value that cannot be read is taken unread. */
  async #read(key: string, lenient = false): Promise<KeyState> {
    const res = await this.#range(key, { key: this.#keys.toEtcd(key) });
    return this.#stateOf(key, res.kvs[0], lenient);
  }

  async #stateOf(key: string, kv: KeyValue | undefined, lenient = false): Promise<KeyState> {
    if (!kv) return { current: null, modRev: 0 };
    const rv = num(kv.mod_revision);
    let v: ReadValue;
    try {
      const r = this.#values.readFull(key, rv, buf(kv.value), bufKey(kv));
      v = isPromise(r) ? await r : r;
    } catch (err) {
      if (!(lenient && isCorrupt(err))) throw err;
      // DeleteOptions.ignoreStoreReadError: the key's revision with an empty value.
      const empty = Buffer.alloc(0);
      return { current: { stored: { key, rv, value: empty }, plain: empty, stale: false, unreadable: true }, modRev: rv };
    }
    return { current: { stored: { key, rv, value: v.value }, plain: v.plain, stale: v.stale }, modRev: rv };
  }

  #stamp(key: string, object: KubeObject, plain: Buffer, rv: number, ttlSeconds: number | undefined, own: OwnWrite | undefined): StoredObject {
    const value = this.#hub.servedOwnWrite(own, rv) ?? this.#codec.setResourceVersion(plain, rv);
    object.metadata.resourceVersion = String(rv);
    this.#hub.noteOwnWrite(key, rv, value, object, own);
    // This storage's writes move the revision for every other prefix's watch: let them know soon.
    this.#hub.requestProgress();
    return ttlSeconds ? { key, rv, value, object, expiresAt: Date.now() + ttlSeconds * 1000 } : { key, rv, value, object };
  }

  async #range(key: string, req: RangeRequest, rv?: number): Promise<RangeResponse> {
    try {
      return await this.client.call('range', req);
    } catch (err) {
      throw this.#error(key, err, rv);
    }
  }

  /**
   * A transaction whose put carries the lease for `ttlSeconds` (none without). etcd refuses the whole transaction
   * when the lease is gone (revoked, or lost with a restored etcd): then the lease manager forgets it and the
   * transaction is tried once more with a new one, which is safe because nothing was applied.
   */
  async #putTxn(key: string, ttlSeconds: number | undefined, build: (lease: string | LeaseId | undefined) => TxnRequest): Promise<TxnResponse> {
    for (let attempt = 0; ; attempt++) {
      let lease: string | undefined;
      if (ttlSeconds) {
        const l = this.leases.getLease(ttlSeconds);
        lease = typeof l === 'string' ? l : await l;
      }
      try {
        return await this.client.call('txn', build(lease === undefined ? undefined : this.leases.encoded(lease)));
      } catch (err) {
        if (lease && attempt === 0 && isGrpcError(err) && err.details === ErrLeaseNotFound) {
          this.leases.forget(lease);
          continue;
        }
        throw this.#error(key, err);
      }
    }
  }

  async #txn(key: string, req: TxnRequest): Promise<TxnResponse> {
    try {
      return await this.client.call('txn', req);
    } catch (err) {
      throw this.#error(key, err);
    }
  }

  /** etcd's errors as the interface's: compacted → Expired, future revision → TooLargeResourceVersion. */
  #error(key: string, err: unknown, rv = 0): Error {
    if (err instanceof StorageError) return err;
    if (isGrpcError(err)) {
      if (err.details === ErrCompacted) return new StorageError('Expired', key, `revision ${rv} has been compacted`, rv);
      if (err.details === ErrFutureRev) return new StorageError('TooLargeResourceVersion', key, `revision ${rv} is newer than the current revision`, rv);
      return new StorageError('Internal', key, `etcd: ${err.details || err.message}`);
    }
    return new StorageError('Internal', key, `etcd: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** Runs a call while open, tracked so that close() waits for it. */
  #run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StorageError('Internal', '', 'storage is closed'));
    const p = fn();
    this.#inflight.add(p);
    // Arrows passed straight in: tsx names a closure bound to a name, at a cost, each time it is made.
    p.then(
      () => this.#inflight.delete(p),
      () => this.#inflight.delete(p),
    );
    return p;
  }

  #checkOpen(): void {
    if (this.#closed) throw new StorageError('Internal', '', 'storage is closed');
  }
}

function buf(u: Uint8Array | null | undefined): Buffer {
  if (!u) return Buffer.alloc(0);
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/** The etcd key of `kv` as a string: the authenticated data its value is bound to. */
function bufKey(kv: KeyValue): string {
  return buf(kv.key).toString();
}

export function openEtcdStorage(opts: EtcdStorageOptions): EtcdStorage {
  return new EtcdStorage(opts);
}
