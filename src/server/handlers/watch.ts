/**
 * The watch server (upstream `handlers/watch.go` + the cacher's per-watcher side). Each watcher queues frames that
 * the cache built once for everybody and writes them once per tick (watch-sink.ts). A watcher whose client stops
 * reading is ended once its unsent bytes pass a bound (upstream terminates blocked watchers too), so one slow
 * client cannot grow memory.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { StatusError, newBadRequest, newInternalError } from '../../apimachinery/errors.ts';
import type { ListOptions } from '../../apimachinery/list-options.ts';
import { goJSON } from '../../apimachinery/codec/encode.ts';
import type { CacheWatch } from '../../storage/cacher/cacher.ts';
import { watchFrame, type CacheEntry, type CacheEvent, type WatchEventType } from '../../storage/cacher/types.ts';
import { parseIncludeObject, type Negotiated } from '../negotiation.ts';
import { servedBytes } from '../../registry/rest/scope.ts';
import { toTable } from '../../registry/rest/table.ts';
import type { RequestContext } from './context.ts';
import { negotiate } from './get.ts';
import { FrameSink, frameTargetOf, type PacedTarget } from './watch-sink.ts';
import { reportedScope } from '../request-metrics.ts';
import type { ResourceWatchMetrics, WatchMetrics } from '../watch-metrics.ts';

export const INITIAL_EVENTS_END_ANNOTATION = 'cluster.io/initial-events-end';

/** Bytes of initial/replayed frames written per step before waiting for the socket. */
const FIRST_CHUNK = 64 * 1024;

export const watchSettings = {
  /** --min-request-timeout: a watch without timeoutSeconds lasts a random time in [min, 2·min). */
  minRequestTimeoutSeconds: 1800,
  bookmarkIntervalMs: 60_000,
  /** Unsent bytes after which a watcher that does not read is ended. */
  maxQueuedBytes: 32 * 1024 * 1024,
  /** Where watch frames and WATCHLIST latencies are recorded (set by the server's wiring; unset: not recorded). */
  metrics: undefined as WatchMetrics | undefined,
};

/** Open watches, so shutdown can end them cleanly. */
export const activeWatches = new Set<{ end(): void }>();

export async function serveWatch(ctx: RequestContext, opts: ListOptions): Promise<void> {
  const n = negotiate(ctx, true);
  const { scope, info } = ctx;
  if (info.name) {
    const required = opts.fieldSelector?.requiresExactMatch('metadata.name');
    if (opts.fieldSelector && !opts.fieldSelector.isEmpty() && required !== undefined && required !== info.name) {
      throw newBadRequest("fieldSelector metadata.name doesn't match requested name");
    }
  }
  const include = n.as === 'Table' ? parseIncludeObject(ctx.query.get('includeObject')) : 'None';
  const w = new WatchStream(ctx, n, include, opts);
  const cw = await scope.store.watch(info.namespace, info.name, opts, w);
  w.start(cw, opts.allowWatchBookmarks && opts.sendInitialEvents === true);
}

/** The response's default high-water mark: past it a watcher counts as behind (no periodic bookmark then). */
const BEHIND_BYTES = 16 * 1024;

class WatchStream {
  #sink: FrameSink;
  /** What the sink writes to (set once the headers are out; see frameTargetOf). */
  #target: PacedTarget;
  /** True when the cache's shared frame bytes are what this watcher is sent (no Table, no view conversion). */
  readonly #shared: boolean;
  #ended = false;
  #live = false;
  #pending: { ev: CacheEvent; type: WatchEventType }[] = [];
  /** Bytes of live changes held back while the initial state or history is still being sent. */
  #pendingBytes = 0;
  #lastRV = 0;
  #cw: CacheWatch | undefined;
  #timers: NodeJS.Timeout[] = [];
  #firstTable = true;
  readonly #entry = { end: () => this.end() };
  readonly #metrics: ResourceWatchMetrics | undefined;
  /** Ends the watch; a client that stopped reading is counted as a terminated watcher first. */
  readonly #stuck = (blocked: boolean) => {
    if (blocked) this.#terminated();
    this.end();
  };

  constructor(
    readonly ctx: RequestContext,
    readonly n: Negotiated,
    readonly include: 'None' | 'Metadata' | 'Object',
    readonly opts: ListOptions,
  ) {
    this.#metrics = watchSettings.metrics?.of(ctx.scope);
    // Until the headers are flushed (start), an early error frame goes through the response itself.
    this.#target = ctx.res as unknown as PacedTarget;
    this.#sink = new FrameSink(this.#target, watchSettings.maxQueuedBytes, this.#stuck, this.#metrics);
    this.#shared = n.as !== 'Table' && !ctx.scope.convert;
  }

  start(cw: CacheWatch, initialEndBookmark: boolean): void {
    this.#cw = cw;
    this.#lastRV = cw.startRV;
    const res = this.ctx.res;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
    (res as { flushHeaders?: () => void }).flushHeaders?.();
    if (!this.#ended) {
      this.#target = frameTargetOf(res as unknown as Parameters<typeof frameTargetOf>[0]);
      this.#sink = new FrameSink(this.#target, watchSettings.maxQueuedBytes, this.#stuck, this.#metrics);
    }
    res.on('close', () => this.end());
    activeWatches.add(this.#entry);
    const timeoutMs =
      this.opts.timeoutSeconds && this.opts.timeoutSeconds > 0
        ? this.opts.timeoutSeconds * 1000
        : (watchSettings.minRequestTimeoutSeconds + Math.random() * watchSettings.minRequestTimeoutSeconds) * 1000;
    this.#longTimeout(() => this.end(), timeoutMs);
    if (this.opts.allowWatchBookmarks) {
      this.#timers.push(setInterval(() => this.#periodicBookmark(), watchSettings.bookmarkIntervalMs));
      if (timeoutMs > 4000) this.#longTimeout(() => this.#periodicBookmark(), timeoutMs - 2000);
    }
    if (cw.initial || cw.replay) void this.#sendFirst(cw, initialEndBookmark);
    else this.#goLive();
  }

  /** setTimeout fires at once past 2^31-1 ms; a watch may ask for far longer, so re-arm in steps. */
  #longTimeout(fn: () => void, ms: number): void {
    const step = Math.min(ms, 2 ** 31 - 1);
    this.#timers.push(setTimeout(() => (ms > step ? this.#longTimeout(fn, ms - step) : fn()), step));
  }

  /**
   * The initial state (or the replayed history) goes out at the socket's pace: write a chunk, wait for drain, pull
   * more. Live changes arriving meanwhile wait in #pending.
   */
  async #sendFirst(cw: CacheWatch, endBookmark: boolean): Promise<void> {
    const paced = async (frame: Buffer) => {
      this.#sink.push(frame);
      if (this.#sink.queuedBytes < FIRST_CHUNK) return;
      if (!this.#sink.flush() && !this.#ended) await drainOrClose(this.#target, this.ctx.res);
    };
    let sent = 0;
    for (const entry of cw.initial ?? []) {
      if (this.#ended) return;
      sent++;
      await paced(this.#frameFor('ADDED', entry));
    }
    for (const { ev, type } of cw.replay ?? []) {
      if (this.#ended) return;
      this.#lastRV = ev.rv;
      sent++;
      await paced(this.#shared ? ev.frame(type) : this.#frameFor(type, ev.entry));
    }
    // Upstream adds a watcher's initial events once it has sent them all.
    if (sent > 0) cw.metrics?.initEvents.inc(sent);
    if (endBookmark) {
      this.#sink.push(this.#bookmark(cw.startRV, true));
      this.#metrics?.watchListDone(reportedScope(this.ctx.info), (performance.now() - this.ctx.receivedAt) / 1000);
    }
    this.#goLive();
  }

  #goLive(): void {
    this.#live = true;
    for (const p of this.#pending) this.#deliver(p.ev, p.type);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#sink.flush();
  }

  onEvent(ev: CacheEvent, type: WatchEventType): void {
    if (this.#ended) return;
    if (!this.#live) {
      this.#pending.push({ ev, type });
      this.#pendingBytes += ev.entry.value.length;
      if (this.#pendingBytes > watchSettings.maxQueuedBytes) this.#stuck(true);
      return;
    }
    this.#deliver(ev, type);
  }

  #deliver(ev: CacheEvent, type: WatchEventType): void {
    this.#lastRV = ev.rv;
    this.#sink.push(this.#shared ? ev.frame(type) : this.#frameFor(type, ev.entry));
  }

  onError(err: Error): void {
    if (this.#ended) return;
    // The store has turned storage errors into Status errors (a compacted revision: 410 Expired).
    const status = err instanceof StatusError ? err : newInternalError(err);
    this.#sink.push(Buffer.from(goJSON({ type: 'ERROR', object: status.toStatus() }) + '\n'));
    this.end();
  }

  #frameFor(type: WatchEventType, entry: CacheEntry): Buffer {
    const scope = this.ctx.scope;
    if (this.n.as !== 'Table') return watchFrame(type, servedBytes(scope, entry.value));
    const obj = scope.codec.decode(entry.value);
    const rowObjects = this.include === 'Object' && scope.convert ? [JSON.parse(servedBytes(scope, entry.value).toString('utf8')) as KubeObject] : undefined;
    const table = toTable(scope, [obj], { resourceVersion: obj.metadata.resourceVersion ?? '' }, this.include, this.#firstTable, Date.now(), rowObjects);
    this.#firstTable = false;
    return Buffer.from(goJSON({ type, object: table }) + '\n');
  }

  #bookmark(rv: number, initialEnd: boolean): Buffer {
    const scope = this.ctx.scope;
    const meta: KubeObject['metadata'] = { resourceVersion: String(rv) };
    if (initialEnd) meta.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    const obj: KubeObject = { kind: scope.kind, apiVersion: scope.groupVersion, metadata: meta };
    if (this.n.as === 'Table') {
      const table = toTable(scope, [], { resourceVersion: String(rv) }, this.include, this.#firstTable);
      this.#firstTable = false;
      return Buffer.from(goJSON({ type: 'BOOKMARK', object: table }) + '\n');
    }
    // A view's bookmark is an empty object of its own version (core/v1: `involvedObject`, `source`, ...).
    const stored = scope.codec.encode(obj);
    return watchFrame('BOOKMARK', scope.convert ? scope.convert.fromStored(stored) : stored);
  }

  #periodicBookmark(): void {
    if (this.#ended || !this.#live || this.#sink.pending || this.#sink.target.writableLength >= BEHIND_BYTES) return;
    // Every change up to the cache's revision has been dispatched to us (synchronously) and written.
    const rv = Math.max(this.#lastRV, this.ctx.scope.store.currentResourceVersion());
    this.#sink.push(this.#bookmark(rv, false));
  }

  #terminated(): void {
    if (!this.#ended) this.#cw?.metrics?.terminatedWatchers.inc();
  }

  /** Ends the stream cleanly (chunked EOF, no final frame), as upstream on timeout or shutdown. */
  end(): void {
    if (this.#ended) return;
    this.#sink.flush();
    this.#sink.close();
    this.#ended = true;
    activeWatches.delete(this.#entry);
    for (const t of this.#timers) clearTimeout(t);
    this.#cw?.stop();
    const res = this.ctx.res;
    if (!res.destroyed && !(res as { writableEnded?: boolean }).writableEnded) res.end();
  }
}

/**
 * Resolves when the frame target drains or the response closes; both listeners go, so a long initial state does
 * not pile them up. 'drain' comes from the target written to (a socket written directly does not make the
 * response emit it).
 */
function drainOrClose(target: PacedTarget, res: RequestContext['res']): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      target.off('drain', done);
      res.off('close', done);
      resolve();
    };
    target.on('drain', done);
    res.on('close', done);
  });
}
