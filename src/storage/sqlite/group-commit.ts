/**
 * Group commit: every write issued in the same event-loop turn (or within `maxWaitMs`) joins one SQLite
 * transaction, so the per-transaction cost (and with synchronous=FULL the fsync) is paid once per group instead of
 * once per request. Revisions are assigned at issue time, in order (the stored bytes do not depend on them, as the
 * storage contract asks of a backend that learns them only at commit); until the group commits, later writes see the
 * pending state through `pendingFor` (read-your-writes for the write path). A write's promise settles only after
 * its group has committed (or failed: then the whole group is rejected and the pending state is dropped).
 */
import type Database from 'better-sqlite3';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { StorageError } from '../interface.ts';
import type { Statements } from './schema.ts';
import { MULTI_ROWS, MultiRowStatements, TYPE_DELETED } from './schema.ts';

/** What a write stores, before its revision is known. */
export interface WriteRequest {
  readonly key: string;
  /** TYPE_ADDED | TYPE_MODIFIED | TYPE_DELETED */
  readonly type: number;
  /** The live row this write supersedes (null for ADDED): its revision and served value. */
  readonly prev: { readonly rv: number; readonly value: Buffer } | null;
  readonly expiresAt: number | undefined;
  /** The bytes for the log row (transformed, without resourceVersion; for DELETED the last value's). */
  readonly data: Buffer;
  /** The same before the transformer: what a later write's encoding is compared with. */
  readonly plain: Buffer;
}

/** One write, as queued and, after the commit, handed to the watch fan-out. */
export interface PendingWrite {
  readonly rv: number;
  readonly key: string;
  /** TYPE_ADDED | TYPE_MODIFIED | TYPE_DELETED */
  readonly type: number;
  /** Served bytes: resourceVersion = rv (for DELETED: the last state at the deletion revision). */
  readonly value: Buffer;
  readonly data: Buffer;
  readonly plain: Buffer;
  /** Revision of the row this write supersedes (0 for ADDED). */
  readonly prevRv: number;
  readonly prevValue: Buffer | undefined;
  readonly expiresAt: number | undefined;
  /** Undefined only for the deletion of a value that could not be read (DeleteOptions.ignoreStoreReadError). */
  readonly object: KubeObject | undefined;
}

interface Queued extends PendingWrite {
  resolve(w: PendingWrite): void;
  reject(err: Error): void;
}

/** Groups larger than this commit at once rather than waiting for the end of the turn, to bound commit latency. */
const MAX_GROUP = 2000;

export class GroupCommitter {
  /** Revision of the latest committed write. */
  committedRev: number;
  /** Bumped whenever a group fails, so a read-modify-write that read pending state can tell it is gone. */
  epoch = 0;
  /** Number of committed transactions (exposed for tests and metrics). */
  transactions = 0;
  private nextRev: number;
  private queue: Queued[] = [];
  /** Latest pending write per key. */
  private readonly overlay = new Map<string, Queued>();
  private timer: NodeJS.Immediate | NodeJS.Timeout | undefined;
  /** Settles when the open group has committed or failed (created with the group's first write). */
  private groupSettled: { promise: Promise<void>; resolve(): void } | undefined;
  private readonly commitTx: (batch: Queued[]) => void;

  constructor(
    db: Database.Database,
    stmts: Statements,
    committedRev: number,
    private readonly maxWaitMs: number,
    private readonly onCommitted: (batch: readonly PendingWrite[]) => void,
  ) {
    this.committedRev = committedRev;
    this.nextRev = committedRev + 1;
    const multi = new MultiRowStatements(db);
    this.commitTx = db.transaction((batch: Queued[]) => writeBatch(stmts, multi, batch));
  }

  /** The latest not yet committed write of `key`, if any. */
  pendingFor(key: string): PendingWrite | undefined {
    return this.overlay.get(key);
  }

  /**
   * Resolves (never rejects) once the pending write of `key`, if any, has committed or failed. A caller that turned
   * down an operation because of pending state waits for this and decides again on committed state, so no answer
   * rests on a write that might still roll back.
   */
  settled(key: string): Promise<void> {
    return this.overlay.has(key) && this.groupSettled ? this.groupSettled.promise : Promise.resolve();
  }

  get pendingCount(): number {
    return this.queue.length;
  }

  /**
   * Queues a write at the next revision. The stored bytes are made before (they do not depend on the revision);
   * `make(rv)` builds the served value and object for that revision; if it throws, nothing is queued and no
   * revision is used. Resolves with the write once its group has committed.
   */
  write(req: WriteRequest, make: (rv: number) => { value: Buffer; object: KubeObject | undefined }): Promise<PendingWrite> {
    const rv = this.nextRev;
    const { value, object } = make(rv);
    this.nextRev = rv + 1;
    const { key, type, prev, expiresAt, data, plain } = req;
    return new Promise<PendingWrite>((resolve, reject) => {
      const w: Queued = { rv, key, type, value, data, plain, object, expiresAt, prevRv: prev?.rv ?? 0, prevValue: prev?.value, resolve, reject };
      if (!this.groupSettled) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        this.groupSettled = { promise, resolve };
      }
      this.queue.push(w);
      this.overlay.set(key, w);
      if (this.queue.length >= MAX_GROUP) this.flush();
      else if (this.timer === undefined) {
        this.timer = this.maxWaitMs > 0 ? setTimeout(() => this.flush(), this.maxWaitMs) : setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued, in one transaction. Synchronous: nothing else runs in between. */
  flush(): void {
    if (this.timer !== undefined) {
      if (this.maxWaitMs > 0) clearTimeout(this.timer as NodeJS.Timeout);
      else clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const settled = this.groupSettled!;
    this.groupSettled = undefined;
    try {
      this.commitTx(batch);
    } catch (err) {
      // No half state: the transaction rolled back, so forget the pending state and reuse its revisions.
      this.overlay.clear();
      this.nextRev = this.committedRev + 1;
      this.epoch++;
      const msg = err instanceof Error ? err.message : String(err);
      for (const w of batch) w.reject(new StorageError('Internal', w.key, `commit failed: ${msg}`));
      settled.resolve();
      return;
    }
    this.overlay.clear();
    this.transactions++;
    this.committedRev = batch[batch.length - 1]!.rv;
    // Watchers hear of the group before any writer's continuation runs (those are microtasks).
    this.onCommitted(batch);
    for (const w of batch) w.resolve(w);
    settled.resolve();
  }
}

/**
 * The rows of one group: log rows in chunks of MULTI_ROWS (their order does not matter, each has its own rv), and
 * the `current` changes in batch order: runs of upserts in chunks, each delete on its own, so that a later write
 * to the same key still wins.
 */
function writeBatch(stmts: Statements, multi: MultiRowStatements, batch: readonly PendingWrite[]): void {
  const params: unknown[] = [];
  for (let i = 0; i < batch.length; i += MULTI_ROWS) {
    const end = Math.min(i + MULTI_ROWS, batch.length);
    params.length = 0;
    for (let j = i; j < end; j++) {
      const w = batch[j]!;
      params.push(w.rv, w.key, w.type, w.data, w.prevRv, w.expiresAt ?? null);
    }
    multi.log(end - i).run(params);
  }
  let run = 0;
  params.length = 0;
  const flushRun = (): void => {
    if (run === 0) return;
    multi.current(run).run(params);
    run = 0;
    params.length = 0;
  };
  for (const w of batch) {
    if (w.type === TYPE_DELETED) {
      flushRun();
      stmts.deleteCurrent.run(w.key);
      continue;
    }
    params.push(w.key, w.rv, w.expiresAt ?? null);
    if (++run === MULTI_ROWS) flushRun();
  }
  flushRun();
}
