/**
 * In-process watch fan-out. A new watcher first replays the log from its `fromRV` page by page (one page per
 * event-loop turn, so a long history neither blocks the loop nor lands in memory at once) and joins the live set in
 * the same synchronous step that reads the last page, so no committed change falls between replay and live and
 * none is delivered twice. Watchers are few (the watch cache above holds one), so fan-out is a plain loop.
 *
 * Replayed rows are read back through the transformer and get their revision's resourceVersion; live changes carry
 * the served bytes of the write itself, which never left the process. A value the transformer cannot read ends the
 * watch with StorageError Corrupt, as upstream's watcher ends with an error event.
 */
import type { StorageEvent, Watch, WatchHandler } from '../interface.ts';
import { StorageError } from '../interface.ts';
import { isCorrupt, type StoredValues } from '../stored-values.ts';
import { isPromise, type MaybePromise } from '../value/transformer.ts';
import type { PendingWrite } from './group-commit.ts';
import type { Statements } from './schema.ts';
import { EVENT_TYPES, TYPE_DELETED, prefixEnd } from './schema.ts';

const REPLAY_PAGE = 500;

interface Watcher {
  readonly prefix: string;
  readonly end: string | Buffer;
  readonly handler: WatchHandler;
  /** Revision of the last change delivered (or skipped as not matching). */
  lastRV: number;
  stopped: boolean;
}

type ReplayRow = [rv: number, key: string, type: number, data: Buffer, prevRv: number, expiresAt: number | null];

/** The event of a committed write; built field by field (no spread copies: this runs once per write). */
function liveEvent(write: PendingWrite): StorageEvent {
  const ev: { -readonly [K in keyof StorageEvent]: StorageEvent[K] } = {
    type: EVENT_TYPES[write.type]!,
    key: write.key,
    rv: write.rv,
    value: write.value,
    object: write.object,
  };
  if (write.expiresAt !== undefined) ev.expiresAt = write.expiresAt;
  if (write.prevValue !== undefined) ev.prevValue = write.prevValue;
  return ev;
}

/** The event of a replayed log row, its values read back; built field by field (this runs once per row). */
function replayed(type: number, key: string, rv: number, value: Buffer, prevValue: Buffer | undefined, expiresAt: number | null): StorageEvent {
  const ev: { -readonly [K in keyof StorageEvent]: StorageEvent[K] } = { type: EVENT_TYPES[type]!, key, rv, value };
  if (expiresAt !== null) ev.expiresAt = expiresAt;
  if (prevValue !== undefined) ev.prevValue = prevValue;
  return ev;
}

export class WatchHub {
  private readonly live = new Set<Watcher>();
  private readonly all = new Set<Watcher>();

  constructor(
    private readonly stmts: Statements,
    private readonly values: StoredValues,
    private readonly committedRev: () => number,
    private readonly compactedRev: () => number,
  ) {}

  get size(): number {
    return this.all.size;
  }

  add(prefix: string, fromRV: number, handler: WatchHandler): Watch {
    const w: Watcher = { prefix, end: prefixEnd(prefix), handler, lastRV: fromRV, stopped: false };
    this.all.add(w);
    // Start on a later turn so the caller holds the Watch (and can stop it) before the first callback.
    setImmediate(() => this.replay(w));
    return { stop: () => this.remove(w) };
  }

  /** Delivers a committed group, in revision order, to every live watcher whose prefix matches. */
  publish(batch: readonly PendingWrite[]): void {
    if (this.live.size === 0) return;
    for (const write of batch) {
      let ev: StorageEvent | undefined;
      for (const w of this.live) {
        if (write.rv <= w.lastRV || !write.key.startsWith(w.prefix)) continue;
        ev ??= liveEvent(write);
        this.deliver(w, ev);
      }
    }
    const head = batch[batch.length - 1]?.rv ?? 0;
    for (const w of this.live) if (w.lastRV < head) this.progress(w, head);
  }

  /** Tells a watcher the revision moved on with nothing under its prefix (see WatchHandler.onProgress). */
  private progress(w: Watcher, rv: number): void {
    w.lastRV = rv;
    if (!w.handler.onProgress) return;
    try {
      w.handler.onProgress(rv);
    } catch (err) {
      this.fail(w, err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Ends every watch with `err` (used on close). */
  closeAll(err: Error): void {
    for (const w of [...this.all]) this.fail(w, err);
  }

  private replay(w: Watcher): void {
    if (w.stopped) return;
    const compacted = this.compactedRev();
    if (w.lastRV < compacted) {
      this.fail(w, new StorageError('Expired', w.prefix, `revision ${w.lastRV} has been compacted (compacted revision ${compacted})`, w.lastRV));
      return;
    }
    const head = this.committedRev();
    const rows = this.stmts.logPage.all(w.lastRV, head, w.prefix, w.end, REPLAY_PAGE) as ReplayRow[];
    const events: MaybePromise<StorageEvent>[] = [];
    let waiting = false;
    try {
      for (const row of rows) {
        const ev = this.replayEvent(row);
        events.push(ev);
        if (isPromise(ev)) waiting = true;
      }
    } catch (err) {
      for (const ev of events) if (isPromise(ev)) ev.catch(() => {}); // the watch ends with the first failure
      this.fail(w, err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (waiting) {
      // The transformer had to wait: deliver the page once it has answered, then read on. Going live needs a page
      // read and delivered in one synchronous step, which a later pass makes.
      Promise.all(events).then(
        (evs) => {
          if (w.stopped) return;
          for (const ev of evs) if (!this.deliver(w, ev)) return;
          setImmediate(() => this.replay(w));
        },
        (err: unknown) => this.fail(w, err instanceof Error ? err : new Error(String(err))),
      );
      return;
    }
    for (const ev of events) if (!this.deliver(w, ev as StorageEvent)) return;
    if (rows.length < REPLAY_PAGE) {
      // Everything up to `head` has been seen and nothing commits during this synchronous step: go live.
      if (w.lastRV < head) this.progress(w, head);
      if (w.stopped) return;
      this.live.add(w);
    } else {
      setImmediate(() => this.replay(w));
    }
  }

  /**
   * The event of a log row: its value (and the previous one) read back, served at their revisions. A deletion
   * whose value does not read back (the unsafe delete, or the TTL sweep of an unreadable value) is replayed as it
   * was delivered live: a DELETED without a value.
   */
  private replayEvent(row: ReplayRow): MaybePromise<StorageEvent> {
    const [rv, key, type, , , expiresAt] = row;
    if (type !== TYPE_DELETED) return this.readEvent(row);
    const unreadable = (err: unknown): StorageEvent => {
      if (!isCorrupt(err)) throw err;
      return replayed(type, key, rv, Buffer.alloc(0), undefined, expiresAt);
    };
    let ev: MaybePromise<StorageEvent>;
    try {
      ev = this.readEvent(row);
    } catch (err) {
      return unreadable(err);
    }
    return isPromise(ev) ? ev.catch(unreadable) : ev;
  }

  private readEvent([rv, key, type, data, prevRv, expiresAt]: ReplayRow): MaybePromise<StorageEvent> {
    const value = this.values.read(key, rv, data);
    const prevData = prevRv > 0 ? (this.stmts.logValue.get(prevRv) as Buffer | undefined) : undefined;
    let prevValue: MaybePromise<Buffer> | undefined;
    try {
      prevValue = prevData === undefined ? undefined : this.values.read(key, prevRv, prevData);
    } catch (err) {
      if (isPromise(value)) value.catch(() => {}); // the watch ends with this failure
      throw err;
    }
    if (!isPromise(value) && !isPromise(prevValue)) return replayed(type, key, rv, value, prevValue, expiresAt);
    return Promise.all([value, prevValue]).then(([v, p]) => replayed(type, key, rv, v, p, expiresAt));
  }

  /** Calls the handler; a throwing handler ends its own watch, never the commit that is being published. */
  private deliver(w: Watcher, ev: StorageEvent): boolean {
    w.lastRV = ev.rv;
    try {
      w.handler.onEvent(ev);
      return !w.stopped;
    } catch (err) {
      this.fail(w, err instanceof Error ? err : new Error(String(err)));
      return false;
    }
  }

  private fail(w: Watcher, err: Error): void {
    if (w.stopped) return;
    this.remove(w);
    try {
      w.handler.onError(err);
    } catch {
      // The watch is already over; a failing error handler has nobody left to tell.
    }
  }

  private remove(w: Watcher): void {
    w.stopped = true;
    this.live.delete(w);
    this.all.delete(w);
  }
}
