/**
 * Watches on etcd: every Storage.watch is one etcd watcher (a key range: the watched prefix) on one shared gRPC
 * watch stream per storage. The watch cache opens one per resource, so etcd sees one watcher per resource prefix.
 *
 * Events. etcd delivers a watcher's events in revision order, with prev_kv: a PUT is ADDED when the key was created
 * at that revision (create_revision == mod_revision, as upstream's event.go decides) and MODIFIED otherwise; a DELETE
 * carries the last value (prev_kv) and becomes DELETED with that value at the deletion revision. Values pass through
 * the value transformer; when it answers asynchronously, later changes of the same watcher wait in its queue, so the
 * order holds. A DELETE whose last value does not read back (the unsafe delete of a corrupt object, or its lease
 * ending) is a DELETED without a value, and a previous value that does not read is left out; only a new value that
 * does not read ends the watch (StorageError Corrupt).
 *
 * Progress (onProgress). The watch cache of one resource must learn that the shared revision moved on through other
 * resources' writes. Two sources, both only for watchers etcd has "synced" (caught up with history):
 *  - etcd's per-watcher progress notifications (progress_notify; every --experimental-watch-progress-notify-interval,
 *    10 minutes by default). They travel through the watcher's own event channel in etcd, so they are ordered.
 *  - Progress requests on the stream (WatchProgressRequest, etcd 3.4+), sent after this storage's writes and when a
 *    read needs the cache at a revision (as upstream's RequestWatchProgress). On etcd 3.4.31+ / 3.5.13+ an answer
 *    is ordered after every event queued before it and is passed on to the synced watchers at once (upstream).
 *    Earlier versions (etcd#15220 before 3.4.25/3.5.8, Debian's 3.4.23 among them; etcd#17507 before 3.4.31/3.5.13
 *    for watchers still catching up) can send one ahead of queued events. Upstream then serves consistent reads
 *    from etcd instead of the cache, and so does this server (`ordered` false: the cacher sees
 *    Storage.consistentReadsFromCache false). The reads that still wait for the cache to reach a revision (not older
 *    than N, a watch with initial events) take an answer on such versions only once the answer to a later request
 *    has arrived, and only for watchers known to be synced: created at the current revision, or since caught up (an
 *    event at or after their creation revision, a per-watcher notification, or SYNC_GRACE_MS without history to
 *    replay). That is stricter than upstream, which uses the answers as they come.
 */
import type { BidiStream } from './bidi.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { StorageEvent, Watch, WatchHandler } from '../interface.ts';
import { StorageError } from '../interface.ts';
import { isCorrupt, type StoredValues } from '../stored-values.ts';
import { isPromise } from '../value/transformer.ts';
import type { EtcdClient } from './client.ts';
import { EVENT_DELETE, num, type KeyValue, type WatchEvent, type WatchRequest, type WatchResponse } from './proto.ts';

/** etcd moves an unsynced watcher's history out every 100 ms; after a few passes with nothing to say it is synced. */
const SYNC_GRACE_MS = 500;
/** Spacing of progress requests while writes keep coming: one answer per interval is enough to keep caches fresh. */
const PROGRESS_SPACING_MS = 20;

/** Own writes waiting for their watch event are forgotten past this many (their events went to no watcher). */
const OWN_WRITES_MAX = 4096;

/** A write of this process, as served: its watch event can carry it instead of decoding etcd's copy again. */
export interface OwnWrite {
  /** Its revision and served bytes once known (from the answer, or from its event when that came first). */
  rv: number;
  value: Buffer;
  object: KubeObject;
  /** Sent, its answer not back yet: the bytes put (to know its event) and the plain bytes (to serve them). */
  sent?: { data: Buffer; plain: Buffer };
}

/** Keys in etcd ↔ keys of the Storage interface. */
export interface KeySpace {
  toEtcd(key: string): Buffer;
  fromEtcd(key: Uint8Array): string;
  rangeEnd(prefix: Buffer): Buffer;
}

class Watcher {
  /** Revision of the last change or progress delivered. */
  lastRv: number;
  /** etcd's revision when it created the watcher (from its created response). */
  createdAt = 0;
  synced = false;
  created = false;
  stopped = false;
  sawEvents = false;
  /** Changes waiting for the transformer (see the top of the file); empty on the synchronous path. */
  readonly queue: (() => void | Promise<void>)[] = [];
  draining = false;

  constructor(
    readonly id: number,
    readonly prefix: string,
    readonly handler: WatchHandler,
    fromRV: number,
    readonly startedAtMs: number,
  ) {
    this.lastRv = fromRV;
  }
}

export class WatchHub {
  readonly #client: EtcdClient;
  readonly #keys: KeySpace;
  readonly #values: StoredValues;
  readonly #onEventsReceived: ((n: number) => void) | undefined;
  #stream: BidiStream<WatchRequest, WatchResponse> | undefined;
  readonly #watchers = new Map<number, Watcher>();
  #nextId = 1;
  #closed = false;
  // Progress requests (see the top of the file).
  #progressInFlight = false;
  #progressWanted = false;
  #progressTimer: NodeJS.Timeout | undefined;
  /** Asks again once a new watcher's grace has passed, so an answer can reach it (see #askWhenSynced). */
  #syncTimer: NodeJS.Timeout | undefined;
  #lastProgressSentAt = 0;
  /** A progress answer waiting for the answer to a later request before it is passed on. */
  #candidate: number | undefined;

  /** Progress answers are ordered after queued events (see the top of the file). */
  readonly #ordered: boolean;
  /** This process's writes by key, until their event arrives (see noteOwnWrite). */
  readonly #own = new Map<string, OwnWrite>();

  constructor(client: EtcdClient, keys: KeySpace, values: StoredValues, ordered: boolean, onEventsReceived?: (n: number) => void) {
    this.#client = client;
    this.#ordered = ordered;
    this.#keys = keys;
    this.#values = values;
    this.#onEventsReceived = onEventsReceived;
  }

  get size(): number {
    return this.#watchers.size;
  }

  add(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    const w = new Watcher(this.#nextId++, prefix, handler, fromRV, Date.now());
    let stream: BidiStream<WatchRequest, WatchResponse>;
    try {
      stream = this.#ensureStream();
    } catch (err) {
      queueMicrotask(() => handler.onError(new StorageError('Internal', prefix, `etcd watch: ${(err as Error).message}`)));
      return { stop() {} };
    }
    this.#watchers.set(w.id, w);
    const key = this.#keys.toEtcd(prefix);
    stream.write({
      create_request: {
        key,
        range_end: this.#keys.rangeEnd(key),
        start_revision: fromRV + 1,
        progress_notify: true,
        prev_kv: true,
        watch_id: w.id,
      },
    });
    return { stop: () => this.#stop(w) };
  }

  /** Asks etcd for a progress answer (coalesced; see the top of the file). */
  requestProgress(): void {
    if (this.#closed || !this.#stream || this.#watchers.size === 0) return;
    this.#progressWanted = true;
    this.#pumpProgress();
  }

  /**
   * This storage wrote `object` (served bytes `value`) at `rv`: the event etcd sends for that key and revision is
   * this very write, so it is handed to the watcher as it is, as the SQLite backend hands its writes to its watchers,
   * instead of undoing the transformer and decoding etcd's copy again. Only the first watcher of the key takes it
   * (the others decode their own copy: no object is shared between two consumers).
   */
  noteOwnWrite(key: string, rv: number, value: Buffer, object: KubeObject, expected?: OwnWrite): void {
    if (expected && this.#own.get(key) === expected) {
      expected.rv = rv;
      expected.value = value;
      expected.sent = undefined;
      return;
    }
    if (this.#watchers.size === 0) return;
    // An event that arrived before the write's answer has already been delivered: nothing would take it.
    let behind = false;
    for (const w of this.#watchers.values()) if (w.lastRv < rv) behind = true;
    if (!behind) return;
    if (this.#own.size >= OWN_WRITES_MAX) this.#own.clear();
    this.#own.set(key, { rv, value, object });
  }

  /**
   * A write about to be sent (`data` the bytes put, `plain` before the transformer): etcd often sends its event
   * before the transaction's answer (both come on one connection), and the event is then known as this write by
   * its bytes. Equal bytes at the key are the same object whoever wrote them, so taking ours is never wrong.
   * Pass the result to noteOwnWrite with the answer, or to forgetOwnWrite when the write failed.
   */
  expectOwnWrite(key: string, data: Buffer, plain: Buffer, object: KubeObject): OwnWrite | undefined {
    if (this.#watchers.size === 0) return undefined;
    if (this.#own.size >= OWN_WRITES_MAX) this.#own.clear();
    const own: OwnWrite = { rv: 0, value: plain, object, sent: { data, plain } };
    this.#own.set(key, own);
    return own;
  }

  /** The bytes a watcher already served for `own` at `rv` (its event came before the answer), if it did. */
  servedOwnWrite(own: OwnWrite | undefined, rv: number): Buffer | undefined {
    return own !== undefined && own.sent === undefined && own.rv === rv ? own.value : undefined;
  }

  forgetOwnWrite(key: string, own: OwnWrite | undefined): void {
    if (own && this.#own.get(key) === own) this.#own.delete(key);
  }

  /** The lowest revision every synced watcher has reached (for a consistent read to know whether to ask). */
  behind(rv: number): boolean {
    for (const w of this.#watchers.values()) if (w.lastRv < rv) return true;
    return false;
  }

  closeAll(err: Error): void {
    this.#closed = true;
    if (this.#progressTimer) clearTimeout(this.#progressTimer);
    if (this.#syncTimer) clearTimeout(this.#syncTimer);
    this.#failAll(err);
  }

  #ensureStream(): BidiStream<WatchRequest, WatchResponse> {
    if (this.#closed) throw new Error('storage closed');
    if (this.#stream) return this.#stream;
    const stream = this.#client.openWatchStream();
    this.#stream = stream;
    stream.on('data', (res: WatchResponse) => this.#onResponse(res));
    const broken = (err: Error | undefined) => {
      if (this.#stream !== stream) return;
      this.#stream = undefined;
      this.#progressInFlight = false;
      this.#candidate = undefined;
      if (err) this.#client.noteStreamFailure(err, stream);
      // Every watcher on the stream ends; the watch cache lists again and starts a new one (a new stream).
      this.#failAll(new StorageError('Internal', '', `etcd watch stream ended: ${err ? err.message : 'closed by the server'}`));
    };
    stream.on('error', (err: Error) => broken(err));
    stream.on('end', () => broken(undefined));
    return stream;
  }

  #failAll(err: Error): void {
    const all = [...this.#watchers.values()];
    this.#watchers.clear();
    for (const w of all) this.#end(w, err);
    if (this.#closed && this.#stream) {
      const s = this.#stream;
      this.#stream = undefined;
      s.cancel();
    }
  }

  #stop(w: Watcher): void {
    if (w.stopped) return;
    w.stopped = true;
    if (this.#watchers.get(w.id) === w) {
      this.#watchers.delete(w.id);
      if (this.#stream && !this.#closed) this.#stream.write({ cancel_request: { watch_id: w.id } });
    }
  }

  #end(w: Watcher, err: Error): void {
    if (w.stopped) return;
    w.stopped = true;
    this.#watchers.delete(w.id);
    w.handler.onError(err);
  }

  #onResponse(res: WatchResponse): void {
    const id = num(res.watch_id);
    const rev = num(res.header?.revision);
    if (id === -1) {
      // The answer to a progress request, for every watcher of the stream.
      this.#onProgressAnswer(rev);
      return;
    }
    const w = this.#watchers.get(id);
    if (!w) return; // stopped: etcd may still send what it had queued
    if (res.created) {
      w.created = true;
      w.createdAt = rev;
      // A watcher starting after the current revision has no history to replay: etcd puts it with the synced ones.
      w.synced = w.lastRv + 1 > rev;
      // One with history to replay learns the revision the others are at only from an answer after its grace.
      if (!w.synced) this.#askWhenSynced(Date.now());
    }
    if (res.canceled) {
      const compacted = num(res.compact_revision);
      if (compacted > 0) {
        this.#end(w, new StorageError('Expired', w.prefix, `watch from revision ${w.lastRv} failed: revision ${compacted - 1} and older have been compacted`, w.lastRv));
      } else {
        this.#end(w, new StorageError('Internal', w.prefix, `etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
      }
      return;
    }
    const events = res.events ?? [];
    if (events.length === 0) {
      if (!res.created) {
        // A per-watcher progress notification: etcd only sends these to synced watchers, in order with events.
        w.synced = true;
        this.#progress(w, rev);
      }
      return;
    }
    w.sawEvents = true;
    this.#onEventsReceived?.(events.length);
    for (const ev of events) this.#enqueue(w, () => this.#deliver(w, ev));
    const last = num(events[events.length - 1]!.kv.mod_revision);
    if (!w.synced && w.created && last >= w.createdAt) w.synced = true;
  }

  #deliver(w: Watcher, ev: WatchEvent): void | Promise<void> {
    const kv = ev.kv;
    const key = this.#keys.fromEtcd(kv.key);
    const rv = num(kv.mod_revision);
    if (ev.type === EVENT_DELETE) {
      const prev = ev.prev_kv;
      if (!prev || !prev.key || prev.key.length === 0) {
        // Without the last value a DELETED cannot be told to watchers; upstream fails the watch the same way.
        throw new StorageError('Internal', key, `etcd delete event at revision ${rv} came without the previous value`);
      }
      const emit = (plain: Buffer, prevValue: Buffer) => {
        const value = this.#values.served(key, rv, plain);
        this.#emit(w, { type: 'DELETED', key, rv, value, prevValue });
      };
      // The deletion of a value that does not read back (the unsafe delete, or a lease ending it): a DELETED
      // without a value, as the SQLite backend and the interface have it (DeleteOptions.ignoreStoreReadError).
      // Whoever held the object reports it gone as last seen; the watch goes on.
      const unreadable = (err: unknown) => {
        if (!isCorrupt(err)) throw err;
        this.#emit(w, { type: 'DELETED', key, rv, value: Buffer.alloc(0) });
      };
      let r;
      try {
        r = this.#values.readFull(key, num(prev.mod_revision), buf(prev.value), this.#etcdKeyString(prev));
      } catch (err) {
        return unreadable(err);
      }
      return isPromise(r) ? r.then((x) => emit(x.plain, x.value), unreadable) : emit(r.plain, r.value);
    }
    const type = num(kv.create_revision) === rv ? 'ADDED' : 'MODIFIED';
    let own = this.#own.get(key);
    let v: Buffer | Promise<Buffer> | undefined;
    if (own?.sent) {
      // Ours before its answer, if the bytes are ours (else someone else's write, and ours is still to come).
      if (own.sent.data.equals(buf(kv.value))) {
        this.#own.delete(key);
        own.object.metadata.resourceVersion = String(rv);
        v = this.#values.served(key, rv, own.sent.plain);
        // Delivered: the write's answer serves the same bytes (EtcdStorage's #stamp), no second splice.
        own.rv = rv;
        own.value = v;
        own.sent = undefined;
      } else own = undefined;
    } else if (own) {
      this.#own.delete(key);
      if (own.rv !== rv) own = undefined;
      else v = own.value;
    }
    // A new value that does not read back ends the watch with StorageError Corrupt (as the SQLite backend's replay
    // and upstream's watcher do): the watch cache lists again and reports it beside the readable objects.
    v ??= this.#values.read(key, rv, buf(kv.value), this.#etcdKeyString(kv));
    const prev = type === 'MODIFIED' && ev.prev_kv && ev.prev_kv.key && ev.prev_kv.key.length > 0 ? ev.prev_kv : undefined;
    // The previous value is optional (StorageEvent.prevValue "when known"): one that does not read back is left out.
    let pv: Buffer | Promise<Buffer | undefined> | undefined;
    if (prev) {
      try {
        const p = this.#values.read(key, num(prev.mod_revision), buf(prev.value), this.#etcdKeyString(prev));
        pv = isPromise(p) ? p.catch(dropCorrupt) : p;
      } catch (err) {
        pv = dropCorrupt(err);
      }
    }
    const object = own?.object;
    // Methods and arrows passed straight in, no named closures: tsx names each one it creates, per event.
    if (isPromise(v) || isPromise(pv)) {
      if (isPromise(pv) && !isPromise(v)) return pv.then((b) => this.#emitPut(w, type, key, rv, object, v, b));
      return Promise.all([v, pv]).then(([a, b]) => this.#emitPut(w, type, key, rv, object, a, b));
    }
    return this.#emitPut(w, type, key, rv, object, v, pv);
  }

  #emitPut(w: Watcher, type: 'ADDED' | 'MODIFIED', key: string, rv: number, object: KubeObject | undefined, value: Buffer, prevValue: Buffer | undefined): void {
    this.#emit(w, object ? (prevValue ? { type, key, rv, value, object, prevValue } : { type, key, rv, value, object }) : prevValue ? { type, key, rv, value, prevValue } : { type, key, rv, value });
  }

  #etcdKeyString(kv: KeyValue): string {
    return buf(kv.key).toString();
  }

  #emit(w: Watcher, ev: StorageEvent): void {
    if (w.stopped) return;
    w.lastRv = ev.rv;
    w.handler.onEvent(ev);
  }

  /** Runs `step` now when nothing is queued before it (the usual, synchronous case), else after what is queued. */
  #enqueue(w: Watcher, step: () => void | Promise<void>): void {
    if (w.stopped) return;
    if (!w.draining && w.queue.length === 0) {
      let r: void | Promise<void>;
      try {
        r = step();
      } catch (err) {
        this.#fail(w, err);
        return;
      }
      if (isPromise(r)) {
        w.draining = true;
        void r.then(() => this.#drain(w), (err: unknown) => this.#fail(w, err));
      }
      return;
    }
    w.queue.push(step);
  }

  async #drain(w: Watcher): Promise<void> {
    try {
      while (w.queue.length && !w.stopped) {
        const r = w.queue.shift()!();
        if (isPromise(r)) await r;
      }
      w.draining = false;
    } catch (err) {
      this.#fail(w, err);
    }
  }

  #fail(w: Watcher, err: unknown): void {
    w.queue.length = 0;
    w.draining = false;
    const e = err instanceof Error ? err : new Error(String(err));
    if (this.#watchers.get(w.id) === w && this.#stream && !this.#closed) this.#stream.write({ cancel_request: { watch_id: w.id } });
    this.#end(w, e);
  }

  #progress(w: Watcher, rv: number): void {
    this.#enqueue(w, () => {
      if (w.stopped || rv <= w.lastRv) return;
      w.lastRv = rv;
      w.handler.onProgress?.(rv);
    });
  }

  #pumpProgress(): void {
    if (this.#progressInFlight || this.#progressTimer || !this.#stream || this.#closed) return;
    if (!this.#progressWanted && this.#candidate === undefined) return;
    const wait = this.#lastProgressSentAt + PROGRESS_SPACING_MS - Date.now();
    if (wait > 0 && this.#candidate === undefined) {
      this.#progressTimer = setTimeout(() => {
        this.#progressTimer = undefined;
        this.#pumpProgress();
      }, wait);
      this.#progressTimer.unref();
      return;
    }
    this.#progressWanted = false;
    this.#progressInFlight = true;
    this.#lastProgressSentAt = Date.now();
    this.#stream.write({ progress_request: {} });
  }

  /**
   * A watcher created with nothing to replay counts as synced only after SYNC_GRACE_MS, so an answer that came sooner
   * (or none at all: no write since) passed it by; when no write follows, nothing would ask again and a reader
   * waiting for this resource's cache to reach the revision (an informer's watch from a list served by etcd) would
   * time out. Ask once more when the youngest such watcher's grace is over.
   */
  #askWhenSynced(now: number): void {
    if (this.#syncTimer || this.#closed) return;
    let due: number | undefined;
    for (const w of this.#watchers.values()) {
      if (!w.synced && w.created && !w.sawEvents) due = Math.max(due ?? 0, w.startedAtMs + SYNC_GRACE_MS - now);
    }
    if (due === undefined) return;
    this.#syncTimer = setTimeout(() => {
      this.#syncTimer = undefined;
      this.requestProgress();
    }, Math.max(0, due) + 1);
    this.#syncTimer.unref();
  }

  #onProgressAnswer(rev: number): void {
    this.#progressInFlight = false;
    if (this.#ordered) {
      // Every event before `rev` has been sent on the stream already: each synced watcher is at `rev`.
      const now = Date.now();
      for (const w of this.#watchers.values()) {
        if (!w.synced && w.created && !w.sawEvents && now - w.startedAtMs >= SYNC_GRACE_MS) w.synced = true;
        if (w.synced) this.#progress(w, rev);
      }
      this.#askWhenSynced(now);
      this.#pumpProgress();
      return;
    }
    const confirmed = this.#candidate;
    this.#candidate = undefined;
    if (confirmed !== undefined) {
      const now = Date.now();
      for (const w of this.#watchers.values()) {
        if (!w.synced && w.created && !w.sawEvents && now - w.startedAtMs >= SYNC_GRACE_MS) w.synced = true;
        if (w.synced) this.#progress(w, confirmed);
      }
      // The revision moved on meanwhile: this answer needs its own confirmation.
      if (rev > confirmed) this.#candidate = rev;
      this.#askWhenSynced(now);
    } else {
      this.#candidate = rev;
    }
    this.#pumpProgress();
  }
}

/** A previous value that does not read back is left out of its event (see #deliver); other errors pass. */
function dropCorrupt(err: unknown): undefined {
  if (!isCorrupt(err)) throw err;
  return undefined;
}

function buf(u: Uint8Array | null | undefined): Buffer {
  if (!u) return Buffer.alloc(0);
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}
