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

/** The response members the sink uses (node:http ServerResponse and node:http2 Http2ServerResponse both have them). */
export interface FrameTarget {
  write(chunk: Buffer): boolean;
  cork(): void;
  uncork(): void;
  /** Bytes accepted by write() that the transport has not sent yet. */
  readonly writableLength: number;
}

/** Sinks with frames queued since the last flush; flushed together by one microtask. */
let dirty: FrameSink[] = [];

function flushDirty(): void {
  const due = dirty;
  dirty = [];
  for (const s of due) {
    // One broken response must not strand the other watchers of this flush.
    try {
      s.flushScheduled();
    } catch {
      s.fail();
    }
  }
}

export class FrameSink {
  #frames: Buffer[] = [];
  #bytes = 0;
  #scheduled = false;
  #closed = false;

  /**
   * @param limitBytes unsent plus queued bytes beyond which the watcher counts as not reading
   * @param onStuck called once when the bound is passed or the response fails (the owner ends the watch); the
   *   sink is closed first
   */
  constructor(
    readonly target: FrameTarget,
    readonly limitBytes: number,
    readonly onStuck: () => void,
  ) {}

  /** Bytes queued in the sink (not yet handed to the response). */
  get queuedBytes(): number {
    return this.#bytes;
  }

  /** True while frames wait for this tick's flush. */
  get pending(): boolean {
    return this.#frames.length > 0;
  }

  /** Queues a frame for this tick's flush. */
  push(frame: Buffer): void {
    if (this.#closed) return;
    this.#frames.push(frame);
    this.#bytes += frame.length;
    if (this.#bytes > this.limitBytes) return this.fail();
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
    const frames = this.#frames;
    if (frames.length === 0) return true;
    this.#frames = [];
    this.#bytes = 0;
    const t = this.target;
    let ok = true;
    if (frames.length === 1) ok = t.write(frames[0]!);
    else {
      t.cork();
      for (const f of frames) ok = t.write(f);
      t.uncork();
    }
    if (t.writableLength > this.limitBytes) {
      this.fail();
      return false;
    }
    return ok;
  }

  /** Drops queued frames and stops writing (the watch is over). */
  close(): void {
    this.#closed = true;
    this.#frames = [];
    this.#bytes = 0;
  }

  /** Closes the sink and tells the owner, once. */
  fail(): void {
    if (this.#closed) return;
    this.close();
    this.onStuck();
  }
}
