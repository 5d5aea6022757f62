/**
 * The embedded SQLite backend (better-sqlite3, WAL). Layout: schema.ts; batching: group-commit.ts; watch:
 * watch-hub.ts; lists: list.ts; TTL: ttl-sweeper.ts; WAL checkpoints: checkpointer.ts. Reads (get, list, count,
 * currentRevision) serve committed state only, so nothing that could still roll back is ever shown to a client;
 * the write path (create, guaranteedUpdate, delete) reads through the pending overlay so that writes in one group
 * build on each other. Every value enters and leaves the database through `values` (../stored-values.ts): stored
 * without resourceVersion and through the transformer, served with it.
 */
import type Database from 'better-sqlite3';
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
  UpdateResult,
  Watch,
  WatchHandler,
} from '../interface.ts';
import { StorageError } from '../interface.ts';
import { StoredValues, type ReadValue } from '../stored-values.ts';
import { identityTransformer } from '../value/identity.ts';
import { isPromise, type Transformer } from '../value/transformer.ts';
import { Checkpointer } from './checkpointer.ts';
import { compactLog } from './compact.ts';
import { GroupCommitter, type PendingWrite } from './group-commit.ts';
import { LiveKeyFilter } from './key-filter.ts';
import { ListWait, listAt } from './list.ts';
import { TYPE_ADDED, TYPE_DELETED, TYPE_MODIFIED, openDatabase, prefixEnd, prepareStatements, type Statements } from './schema.ts';
import { TtlSweeper } from './ttl-sweeper.ts';
import { WatchHub } from './watch-hub.ts';

export interface SqliteStorageOptions {
  /** Database file (created if missing). */
  path: string;
  codec: Codec;
  /** Applied to every value on its way into and out of the database, keyed by the storage key (default: identity). */
  transformer?: Transformer;
  /** NORMAL (default): a commit survives a process crash. FULL: also an OS crash or power loss (one fsync per group). */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a group waits for more writes after the first one; 0 (default) = until the end of the event-loop turn. At most 2. */
  groupCommitMaxWaitMs?: number;
  /** TTL sweep period in ms (default 1000). */
  sweepIntervalMs?: number;
  /** Clock for TTL deadlines, epoch ms (default Date.now); injectable for tests. */
  now?: () => number;
}

const COMPACTED = 'compacted';
/** Passes a list makes while the transformer keeps answering asynchronously (see Transformer) before it gives up. */
const MAX_LIST_ATTEMPTS = 5;

/** The live object as the write path sees it (upstream's objState). */
interface Current {
  readonly stored: StoredObject;
  /** Its stored encoding with the transformer undone: what a new encoding is compared with. */
  readonly plain: Buffer;
  /** Its bytes in the database: a delete's log row keeps them (the last state) as they are. */
  readonly data: Buffer;
  readonly stale: boolean;
}

/** The write path's view of a key: the object (null when absent) and the revision of the write that decided it. */
interface WriteView {
  current: Current | null;
  version: number;
  /** Read from a write that has not committed yet. */
  pending: boolean;
}

type CurrentRow = [rv: number, data: Buffer, expiresAt: number | null];

// One literal per case rather than a spread copy: this runs once per write.
function toStored(w: PendingWrite): StoredObject {
  if (w.expiresAt === undefined) return { key: w.key, rv: w.rv, value: w.value, object: w.object };
  return { key: w.key, rv: w.rv, value: w.value, object: w.object, expiresAt: w.expiresAt };
}

function stored(key: string, rv: number, value: Buffer, expiresAt: number | null): StoredObject {
  return expiresAt === null ? { key, rv, value } : { key, rv, value, expiresAt };
}

/** The write path's view of a committed row, read back as `r`. */
function committedView(key: string, [rv, data, expiresAt]: CurrentRow, r: ReadValue): WriteView {
  return { current: { stored: stored(key, rv, r.value, expiresAt), plain: r.plain, data, stale: r.stale }, version: rv, pending: false };
}

export class SqliteStorage implements Storage {
  readonly name = 'sqlite';
  private readonly db: Database.Database;
  private readonly stmts: Statements;
  private readonly codec: Codec;
  private readonly values: StoredValues;
  private readonly now: () => number;
  private readonly commits: GroupCommitter;
  private readonly hub: WatchHub;
  private readonly sweeper: TtlSweeper;
  private readonly checkpointer: Checkpointer;
  /** Lets a create of a new key skip the existence lookup. */
  private readonly keys: LiveKeyFilter;
  private compacted: number;
  private closed = false;

  constructor(opts: SqliteStorageOptions) {
    this.db = openDatabase(opts.path, opts.synchronous ?? 'NORMAL');
    this.stmts = prepareStatements(this.db);
    this.checkpointer = new Checkpointer(opts.path, 100);
    this.codec = opts.codec;
    this.values = new StoredValues(opts.transformer ?? identityTransformer, opts.codec);
    this.now = opts.now ?? Date.now;
    this.compacted = (this.stmts.getMeta.get(COMPACTED) as number | undefined) ?? 0;
    const head = Math.max((this.stmts.maxRev.get() as number | null) ?? 0, this.compacted);
    const maxWait = Math.min(Math.max(opts.groupCommitMaxWaitMs ?? 0, 0), 2);
    this.hub = new WatchHub(this.stmts, this.values, () => this.commits.committedRev, () => this.compacted);
    const stmts = this.stmts;
    this.keys = new LiveKeyFilter((after, limit) => stmts.keysAfter.all(after, limit) as string[], stmts.countCurrent.get('', prefixEnd('')) as number);
    this.commits = new GroupCommitter(this.db, this.stmts, head, maxWait, (batch) => {
      for (const w of batch) {
        if (w.type === TYPE_ADDED) this.keys.noteAdded(w.key);
        else if (w.type === TYPE_DELETED) this.keys.noteDeleted();
      }
      this.hub.publish(batch);
    });
    this.sweeper = new TtlSweeper(this.stmts, this.now, opts.sweepIntervalMs ?? 1000, (key, rv) =>
      this.delete(key, {
        validateDeletion: (cur) => {
          if (cur.rv !== rv) throw new StorageError('Internal', key, 'rewritten since it expired');
        },
        // An expired value goes whether or not it can be read, as an etcd lease deletes its keys unread.
        ignoreStoreReadError: true,
      }),
    );
  }

  /** Counters for tests and metrics: committed transactions, pending writes, open watches. */
  stats(): { transactions: number; pending: number; watchers: number } {
    return { transactions: this.commits.transactions, pending: this.commits.pendingCount, watchers: this.hub.size };
  }

  /**
   * Bytes of the database file as allocated, page_count × page_size (etcd's dbSize, for apiserver_storage_size_bytes):
   * free pages included, the WAL not (its frames are the main file's pages in waiting).
   */
  sizeBytes(): number {
    this.checkOpen();
    return (this.db.pragma('page_count', { simple: true }) as number) * (this.db.pragma('page_size', { simple: true }) as number);
  }

  /** Runs one TTL sweep now (the timer does this every sweepIntervalMs); resolves with the number of deletions. */
  sweepExpired(): Promise<number> {
    this.checkOpen();
    return this.sweeper.sweep();
  }

  async get(key: string): Promise<StoredObject | null> {
    this.checkOpen();
    const row = this.stmts.getCurrent.get(key) as CurrentRow | undefined;
    if (!row) return null;
    const v = this.values.read(key, row[0], row[1]);
    return stored(key, row[0], isPromise(v) ? await v : v, row[2]);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    let failed: Map<string, StorageError> | undefined;
    for (let attempt = 1; ; attempt++) {
      this.checkOpen();
      const head = this.commits.committedRev;
      let r: ListResult | ListWait;
      if (opts.rv === undefined) r = listAt(this.stmts, this.values, prefix, head, true, opts, failed);
      else {
        if (opts.rv > head) {
          throw new StorageError('TooLargeResourceVersion', prefix, `revision ${opts.rv} is newer than the current revision ${head}`, opts.rv);
        }
        this.checkNotCompacted(prefix, opts.rv);
        r = listAt(this.stmts, this.values, prefix, opts.rv, opts.rv === head, opts, failed);
      }
      if (!(r instanceof ListWait)) return r;
      // The transformer had to wait for some values (see Transformer): once it has them, list again in one step.
      if (attempt === MAX_LIST_ATTEMPTS) {
        r.wait.catch(() => {}); // given up on: its failure has nobody to tell
        throw new StorageError('Internal', prefix, `the value transformer still answers asynchronously after ${attempt} passes`);
      }
      const more = await r.wait;
      if (more) failed = failed ? new Map([...failed, ...more]) : more;
    }
  }

  async create(key: string, obj: KubeObject, ttlSeconds?: number): Promise<StoredObject> {
    this.checkOpen();
    // The stored bytes do not depend on the revision: made once, before it is known (see interface.ts).
    delete obj.metadata.resourceVersion;
    const plain = this.codec.encode(obj);
    const d = this.values.toStorage(key, plain);
    const data = isPromise(d) ? await d : d;
    for (;;) {
      this.checkOpen();
      // Existence only: pending state, else the key filter, and only on its "maybe" the database.
      const p = this.commits.pendingFor(key);
      if (p ? p.type !== TYPE_DELETED : this.keys.mayHave(key) && this.stmts.currentRv.get(key) !== undefined) {
        if (p) {
          await this.commits.settled(key);
          continue;
        }
        throw new StorageError('KeyExists', key, `key already exists: ${key}`);
      }
      const req = { key, type: TYPE_ADDED, prev: null, expiresAt: this.deadline(ttlSeconds), data, plain };
      return toStored(await this.commits.write(req, (rv) => this.stamp(obj, plain, rv)));
    }
  }

  async guaranteedUpdate(key: string, opts: GuaranteedUpdateOptions): Promise<GuaranteedUpdateResult> {
    for (;;) {
      this.checkOpen();
      const epoch = this.commits.epoch;
      // Set when anything was awaited since `view` was taken: then others may have written the key meanwhile.
      let waited = false;
      let view = this.view(key);
      if (isPromise(view)) {
        view = await view;
        this.checkOpen();
        waited = true;
      }
      const cur = view.current;
      if (!cur && !opts.ignoreNotFound) {
        if (await this.settledIfPending(key, view)) continue;
        throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      }
      let res: UpdateResult;
      try {
        const r = opts.tryUpdate(cur ? cur.stored : null);
        if (isPromise(r)) {
          res = await r;
          this.checkOpen();
          waited = true;
        } else res = r;
      } catch (err) {
        // A refusal based on state that may still roll back is re-decided on committed state.
        if (await this.settledIfPending(key, view)) continue;
        throw err;
      }
      // Someone wrote the key (or a group failed) while we waited: start again from the new state.
      if (waited && this.changedSince(key, view, epoch)) continue;
      const { object, ttlSeconds } = res;
      delete object.metadata.resourceVersion;
      const plain = this.codec.encode(object);
      // Unchanged, as upstream decides it: the same stored bytes, unless the transformer wants them rewritten.
      if (cur && !cur.stale && plain.equals(cur.plain)) {
        if (await this.settledIfPending(key, view)) continue;
        object.metadata.resourceVersion = String(cur.stored.rv);
        return { stored: { ...cur.stored, object }, created: false, noop: true };
      }
      let data = this.values.toStorage(key, plain);
      if (isPromise(data)) {
        data = await data;
        this.checkOpen();
        if (this.changedSince(key, view, epoch)) continue;
      }
      const prev = cur ? cur.stored : null;
      const req = { key, type: cur ? TYPE_MODIFIED : TYPE_ADDED, prev, expiresAt: this.deadline(ttlSeconds), data, plain };
      const w = await this.commits.write(req, (rv) => this.stamp(object, plain, rv));
      return { stored: toStored(w), created: !cur, noop: false };
    }
  }

  async delete(key: string, opts: DeleteOptions = {}): Promise<StoredObject> {
    for (;;) {
      this.checkOpen();
      const epoch = this.commits.epoch;
      let waited = false;
      let view: WriteView | Promise<WriteView>;
      let unreadable = false;
      try {
        view = this.view(key);
        if (isPromise(view)) {
          view = await view;
          this.checkOpen();
          waited = true;
        }
      } catch (e) {
        // The unsafe delete of a value that cannot be read: the row goes as it is, unread.
        if (!(opts.ignoreStoreReadError && e instanceof StorageError && e.code === 'Corrupt')) throw e;
        this.checkOpen();
        view = this.unreadableView(key);
        unreadable = true;
        waited = true;
      }
      const cur = view.current;
      if (!cur) {
        if (await this.settledIfPending(key, view)) continue;
        throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
      }
      if (unreadable) {
        // The validator sees what there is: the row's revision, an empty value (the TTL sweep checks the revision).
        await opts.validateDeletion?.(cur.stored);
        this.checkOpen();
        if (this.changedSince(key, view, epoch)) continue;
        const req = { key, type: TYPE_DELETED, prev: cur.stored, expiresAt: undefined, data: cur.data, plain: cur.plain };
        return toStored(await this.commits.write(req, () => ({ value: cur.plain, object: undefined })));
      }
      if (opts.validateDeletion) {
        try {
          const r = opts.validateDeletion(cur.stored);
          if (isPromise(r)) {
            await r;
            this.checkOpen();
            waited = true;
          }
        } catch (err) {
          if (await this.settledIfPending(key, view)) continue;
          throw err;
        }
      }
      if (waited && this.changedSince(key, view, epoch)) continue;
      // The log row keeps the last state's bytes as they are; watchers get that state at the deletion revision.
      const req = { key, type: TYPE_DELETED, prev: cur.stored, expiresAt: undefined, data: cur.data, plain: cur.plain };
      const w = await this.commits.write(req, (rv) => {
        const value = this.codec.setResourceVersion(cur.plain, rv);
        return { value, object: this.codec.decode(value) };
      });
      return toStored(w);
    }
  }

  watch(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    this.checkOpen();
    return this.hub.add(prefix, fromRV, handler);
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    return this.stmts.countCurrent.get(prefix, prefixEnd(prefix)) as number;
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.commits.committedRev;
  }

  async compact(rv: number): Promise<void> {
    this.checkOpen();
    const head = this.commits.committedRev;
    if (rv > head) throw new StorageError('TooLargeResourceVersion', '', `cannot compact to ${rv}: current revision is ${head}`, rv);
    if (rv <= this.compacted) return;
    const from = this.compacted;
    // Recorded first: from here on reads at or below rv are refused, even if the process dies mid-way.
    this.compacted = rv;
    this.stmts.setMeta.run(COMPACTED, rv);
    await compactLog(this.db, this.stmts, from, rv, () => this.closed);
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async readinessCheck(): Promise<void> {
    this.checkOpen();
    this.stmts.ping.get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.commits.flush();
    this.closed = true;
    this.keys.stop();
    this.sweeper.stop();
    this.hub.closeAll(new StorageError('Internal', '', 'storage closed'));
    await this.checkpointer.stop();
    this.db.close();
  }

  /**
   * The write path's view of `key`: the pending write if there is one, else the committed row (read back through
   * the transformer, which may have to wait).
   */
  private view(key: string): WriteView | Promise<WriteView> {
    const p = this.commits.pendingFor(key);
    if (p) {
      const current = p.type === TYPE_DELETED ? null : { stored: toStored(p), plain: p.plain, data: p.data, stale: false };
      return { current, version: p.rv, pending: true };
    }
    const row = this.stmts.getCurrent.get(key) as CurrentRow | undefined;
    if (!row) return { current: null, version: 0, pending: false };
    const r = this.values.readFull(key, row[0], row[1]);
    return isPromise(r) ? r.then((v) => committedView(key, row, v)) : committedView(key, row, r);
  }

  /** The committed row of `key` taken as it is, for deleting a value that cannot be read (empty served bytes). */
  private unreadableView(key: string): WriteView {
    const row = this.stmts.getCurrent.get(key) as CurrentRow | undefined;
    if (!row) return { current: null, version: 0, pending: false };
    const empty = Buffer.alloc(0);
    return { current: { stored: stored(key, row[0], empty, row[2]), plain: empty, data: row[1], stale: false }, version: row[0], pending: false };
  }

  /** True when `key` was written, or a group failed, since `view` was taken at `epoch`. */
  private changedSince(key: string, view: WriteView, epoch: number): boolean {
    if (this.commits.epoch !== epoch) return true;
    const p = this.commits.pendingFor(key);
    const version = p ? p.rv : ((this.stmts.currentRv.get(key) as number | undefined) ?? 0);
    return version !== view.version;
  }

  /** When `view` came from a pending write, waits until it has settled and returns true (decide again). */
  private async settledIfPending(key: string, view: WriteView): Promise<boolean> {
    if (!view.pending) return false;
    await this.commits.settled(key);
    return true;
  }

  /** The served form of a write at `rv`: its stored encoding with the revision set, and the object stamped. */
  private stamp(object: KubeObject, plain: Buffer, rv: number): { value: Buffer; object: KubeObject } {
    const value = this.codec.setResourceVersion(plain, rv);
    object.metadata.resourceVersion = String(rv);
    return { value, object };
  }

  private deadline(ttlSeconds: number | undefined): number | undefined {
    return ttlSeconds ? this.now() + ttlSeconds * 1000 : undefined;
  }

  private checkNotCompacted(key: string, rv: number): void {
    if (this.compacted > 0 && rv <= this.compacted) {
      throw new StorageError('Expired', key, `revision ${rv} has been compacted (compacted revision ${this.compacted})`, rv);
    }
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Internal', '', 'storage is closed');
  }
}

/** Opens (or creates) the SQLite store at `opts.path`. */
export function openSqliteStorage(opts: SqliteStorageOptions): SqliteStorage {
  return new SqliteStorage(opts);
}
