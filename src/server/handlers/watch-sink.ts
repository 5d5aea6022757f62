/**
 * The write side of one watch: frames (shared Buffers built once per event for every watcher) are queued per
 * watcher and written once per tick, all of a watcher's frames of that tick in one corked write (one writev, no
 * copy: on HTTP/2 one DATA run, on HTTP/1.1 one TLS record). One microtask flushes every watcher that got frames,
 * so a fan-out to N watchers costs no per-watcher closure, promise or timer.
 *
 * Backpressure: writes are never held back while the response buffers earlier ones; Node's Writable keeps the
 * shared frames by reference and hands them to the transport as one writev when the previous write completes.
 * What the client has not taken yet is the response's `writableLength`; once that passes the bound the watcher is
 * ended (upstream terminates watchers that stop reading too), so one slow client cannot grow memory.
 */
import type { WatchEventSeries } from '../watch-metrics.ts';

/** The response members the sink uses (node:http ServerResponse and node:http2 Http2ServerResponse both have them). */
export interface FrameTarget {
  write(chunk: Buffer): boolean;
  cork(): void;
  uncork(): void;
  /** Bytes accepted by write() that the transport has not sent yet. */
  readonly writableLength: number;
}

/**
 * Sinks with frames queued since the last flush; flushed together by one microtask. Two arrays take turns (a sink
 * flushed now may be queued again for the next flush), so a flush allocates nothing.
 */
let dirty: FrameSink[] = [];
let spare: FrameSink[] = [];

function flushDirty(): void {
  const due = dirty;
  dirty = spare;
  for (let i = 0; i < due.length; i++) {
    const s = due[i]!;
    // One broken response must not strand the other watchers of this flush.
    try {
      s.flushScheduled();
    } catch {
      s.fail(false);
    }
  }
  due.length = 0;
  spare = due;
}

export class FrameSink {
  // A tick usually brings a watcher one frame (one commit, one change): it waits in #first, and only a second one
  // makes the array, so the common delivery allocates nothing per watcher.
  #first: Buffer | undefined = undefined;
  #more: Buffer[] | undefined = undefined;
  #bytes = 0;
  #scheduled = false;
  #closed = false;

  /**
   * @param limitBytes unsent plus queued bytes beyond which the watcher counts as not reading
   * @param onStuck called once when the bound is passed (`blocked`: the client does not keep up) or the response
   *   fails (the owner ends the watch); the sink is closed first
   * @param events where every frame written is counted and sized (apiserver_watch_events_total and _sizes)
   */
  constructor(
    readonly target: FrameTarget,
    readonly limitBytes: number,
    readonly onStuck: (blocked: boolean) => void,
    readonly events?: WatchEventSeries,
  ) {}

  /** Bytes queued in the sink (not yet handed to the response). */
  get queuedBytes(): number {
    return this.#bytes;
  }

  /** True while frames wait for this tick's flush. */
  get pending(): boolean {
    return this.#first !== undefined;
  }

  /** Queues a frame for this tick's flush. */
  push(frame: Buffer): void {
    if (this.#closed) return;
    if (this.#first === undefined) this.#first = frame;
    else (this.#more ??= []).push(frame);
    this.#bytes += frame.length;
    if (this.#bytes > this.limitBytes) return this.fail(true);
    if (!this.#scheduled) {
      this.#scheduled = true;
      // The frames of one storage commit are dispatched synchronously, so a microtask sees all of them; a later
      // phase (setImmediate) would only add latency, as the group commit itself runs once per loop turn.
      if (dirty.push(this) === 1) queueMicrotask(flushDirty);
    }
  }

  /** Called by the shared flush. */
  flushScheduled(): void {
    this.#scheduled = false;
    this.flush();
  }

  /**
   * Writes the queued frames now. Returns false when the response's buffer is past its high-water mark (callers
   * pacing a large initial state wait for 'drain'; live frames do not wait, the bound covers them).
   */
  flush(): boolean {
    if (this.#closed) return false;
    const first = this.#first;
    if (first === undefined) return true;
    const more = this.#more;
    this.#first = undefined;
    this.#more = undefined;
    this.#bytes = 0;
    const t = this.target;
    let ok: boolean;
    const ev = this.events;
    if (more === undefined) {
      ok = t.write(first);
      if (ev) {
        ev.count.value++;
        ev.sizes.observe(first.length);
      }
    } else {
      t.cork();
      ok = t.write(first);
      for (const f of more) ok = t.write(f);
      t.uncork();
      if (ev) {
        ev.count.value += 1 + more.length;
        ev.sizes.observe(first.length);
        for (const f of more) ev.sizes.observe(f.length);
      }
    }
    if (t.writableLength > this.limitBytes) {
      this.fail(true);
      return false;
    }
    return ok;
  }

  /** Drops queued frames and stops writing (the watch is over). */
  close(): void {
    this.#closed = true;
    this.#first = undefined;
    this.#more = undefined;
    this.#bytes = 0;
  }

  /** Closes the sink and tells the owner, once; `blocked`: because the client stopped reading. */
  fail(blocked = false): void {
    if (this.#closed) return;
    this.close();
    this.onStuck(blocked);
  }
}

/** A FrameTarget that also reports 'drain' (to pace a large initial state). */
export interface PacedTarget extends FrameTarget {
  on(event: 'drain', fn: () => void): unknown;
  off(event: 'drain', fn: () => void): unknown;
}

/** What frameTargetOf needs of a response (node:http ServerResponse or node:http2 Http2ServerResponse). */
interface AnyResponse extends PacedTarget {
  /** node:http2 compat responses: the Http2Stream underneath. */
  stream?: PacedTarget;
  socket?: (PacedTarget & { _httpMessage?: unknown; writable?: boolean }) | null;
  headersSent?: boolean;
  chunkedEncoding?: boolean;
  outputData?: unknown[];
}

/**
 * Where a watch writes its frames, chosen once its headers are flushed:
 * - HTTP/2: the response's Http2Stream (the compat response's write only re-checks state and forwards to it).
 * - HTTP/1.1 with chunked encoding, when the headers already went to the socket and this response owns it (not
 *   queued behind a pipelined one): the socket, with each frame's chunk framing built once for all watchers.
 *   ServerResponse.write writes size line, data and CRLF as three buffers and uncorks on the next tick; one
 *   prebuilt chunk halves the server's CPU per delivery beside the TLS work.
 * - Otherwise (HTTP/1.0, a queued response): the response itself.
 */
export function frameTargetOf(res: AnyResponse): PacedTarget {
  if (res.stream) return res.stream;
  const socket = res.socket;
  if (socket && res.headersSent && res.chunkedEncoding === true && socket._httpMessage === res && socket.writable && Array.isArray(res.outputData) && res.outputData.length === 0) {
    return new ChunkedSocketTarget(socket, res);
  }
  return res;
}

const CRLF = Buffer.from('\r\n');
/** frame → the same bytes as one HTTP/1.1 chunk; shared by every watcher that gets the frame, gone with it. */
const chunks = new WeakMap<Buffer, Buffer>();

/** The HTTP/1.1 chunk of `frame` (`<hex size>\r\n<frame>\r\n`), built once per frame. */
export function chunkOf(frame: Buffer): Buffer {
  let c = chunks.get(frame);
  if (!c) {
    const head = Buffer.from(frame.length.toString(16) + '\r\n', 'latin1');
    c = Buffer.concat([head, frame, CRLF], head.length + frame.length + CRLF.length);
    chunks.set(frame, c);
  }
  return c;
}

/** Writes chunked frames straight to an HTTP/1.1 response's socket (see frameTargetOf for when that is safe). */
export class ChunkedSocketTarget implements PacedTarget {
  constructor(
    readonly socket: PacedTarget,
    /** The response, whose writableLength counts its own unsent output too (none once it owns the socket). */
    readonly res: FrameTarget,
  ) {}

  write(frame: Buffer): boolean {
    return this.socket.write(chunkOf(frame));
  }

  cork(): void {
    this.socket.cork();
  }

  uncork(): void {
    this.socket.uncork();
  }

  get writableLength(): number {
    return this.res.writableLength;
  }

  on(event: 'drain', fn: () => void): unknown {
    return this.socket.on(event, fn);
  }

  off(event: 'drain', fn: () => void): unknown {
    return this.socket.off(event, fn);
  }
}
