/**
 * Unary gRPC calls to one etcd endpoint on an HTTP/2 connection of their own (h2.ts), without grpc-js's call stack:
 * every create, update and delete of the etcd backend is one unary Txn, and grpc-js's layers around the HTTP/2 stream
 * (resolving, retrying and load-balancing calls, interceptors, call credentials, metadata objects) cost about as much
 * CPU again as the stream itself (~400 against ~200 µs per Txn in a side-by-side run at c=64 on the bench machine),
 * and node:http2's stream costs several times the framing of our own (h2.ts: ~50 µs per Txn, call included).
 * The wire format is gRPC's over HTTP/2 (PROTOCOL-HTTP2.md): a POST to /package.Service/Method with
 * `content-type: application/grpc` and `te: trailers`, a body of length-prefixed messages, and the status in the
 * `grpc-status` / `grpc-message` trailers (or the headers of a trailers-only answer). Errors look like grpc-js's
 * (code, details, message "<code> <NAME>: <details>"), so callers cannot tell the two apart. Watch streams are
 * HTTP/2 streams of the same connection (`openStream`, bidi.ts).
 */
import type { SecureContextOptions } from 'node:tls';
import { encodeLiterals } from './hpack.ts';
import { errorName, H2Connection, type H2Stream, type H2StreamHandler, type StreamEnd } from './h2.ts';

/** A gRPC status error from etcd (code and etcd's own message, e.g. "etcdserver: mvcc: required revision has been compacted"). */
export interface GrpcError extends Error {
  code: number;
  details: string;
}

/** gRPC status codes used here (grpc's status.proto). */
export const Code = { CANCELLED: 1, UNKNOWN: 2, DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, INTERNAL: 13, UNAVAILABLE: 14, UNAUTHENTICATED: 16, PERMISSION_DENIED: 7, UNIMPLEMENTED: 12 } as const;
const NAMES: Record<number, string> = {
  0: 'OK', 1: 'CANCELLED', 2: 'UNKNOWN', 3: 'INVALID_ARGUMENT', 4: 'DEADLINE_EXCEEDED', 5: 'NOT_FOUND', 6: 'ALREADY_EXISTS',
  7: 'PERMISSION_DENIED', 8: 'RESOURCE_EXHAUSTED', 9: 'FAILED_PRECONDITION', 10: 'ABORTED', 11: 'OUT_OF_RANGE',
  12: 'UNIMPLEMENTED', 13: 'INTERNAL', 14: 'UNAVAILABLE', 15: 'DATA_LOSS', 16: 'UNAUTHENTICATED',
};

export function grpcError(code: number, details: string): GrpcError {
  const err = new Error(`${code} ${NAMES[code] ?? 'UNKNOWN'}: ${details}`) as GrpcError;
  err.code = code;
  err.details = details;
  return err;
}

/** What a response's header blocks said: the HTTP status, and the gRPC status once a block carried one. */
export class CallStatus {
  http = 0;
  grpc: { code: number; message: string } | undefined;

  /** Takes in one header block (the response headers, the trailers, or the headers of a trailers-only answer). */
  take(fields: [string, string][]): void {
    let code: string | undefined;
    let message = '';
    for (const [name, value] of fields) {
      if (name === ':status') this.http = Number(value);
      else if (name === 'grpc-status') code = value;
      else if (name === 'grpc-message') message = value;
    }
    if (code !== undefined) this.grpc = { code: Number(code), message: decodeMessage(message) };
  }

  /**
   * The error a stream ended with, if any: its gRPC status when one came; else the HTTP status mapped as gRPC does;
   * else how it ended — a connection that went away (the member died) or a refused stream is UNAVAILABLE, and so is
   * a reset with an error code (the write may have been applied or not); a clean end without a status is INTERNAL.
   */
  error(end: StreamEnd): GrpcError | undefined {
    if (this.grpc) return this.grpc.code === 0 ? undefined : grpcError(this.grpc.code, this.grpc.message);
    if (this.http && this.http !== 200) return grpcError(httpStatusCode(this.http), `Received HTTP status code ${this.http}`);
    if (end.ok) return grpcError(Code.INTERNAL, 'stream ended without a status');
    if ('dropped' in end) return grpcError(Code.UNAVAILABLE, end.dropped);
    if (end.rstCode === 0) return grpcError(Code.INTERNAL, 'Received RST_STREAM with code 0');
    return grpcError(Code.UNAVAILABLE, `Received RST_STREAM with code ${end.rstCode} (${errorName(end.rstCode)})`);
  }
}

/** gRPC's mapping of an HTTP status without a grpc-status (PROTOCOL-HTTP2.md, "HTTP to gRPC Status Code Mapping"). */
function httpStatusCode(status: number): number {
  switch (status) {
    case 400:
      return Code.INTERNAL;
    case 401:
      return Code.UNAUTHENTICATED;
    case 403:
      return Code.PERMISSION_DENIED;
    case 404:
      return Code.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.UNAVAILABLE;
    default:
      return Code.UNKNOWN;
  }
}

/** grpc-message is percent-encoded (only bytes outside printable ASCII, and '%'). */
function decodeMessage(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface UnaryChannelOptions {
  /** TLS material for https endpoints (undefined: plaintext). */
  tls?: SecureContextOptions;
  /** A ping every this often while calls are in flight finds a connection to a member that died without FIN. */
  keepaliveTimeMs: number;
  keepaliveTimeoutMs: number;
}

/** Large windows: a list of a whole resource from etcd is one message of up to hundreds of MB. */
const STREAM_WINDOW = 4 << 20;
const SESSION_WINDOW = 16 << 20;

export class UnaryChannel {
  readonly #authority: string;
  readonly #opts: UnaryChannelOptions;
  #conn: H2Connection | undefined;
  /** The last connection attempt failed and none has succeeded since (grpc's TRANSIENT_FAILURE). */
  #failed = false;
  #inflight = 0;
  readonly #connCalls = new WeakMap<H2Connection, number>();
  readonly #blocks = new Map<string, Buffer>();
  #closed = false;
  #pinger: NodeJS.Timeout | undefined;
  #pingOutstanding = false;

  constructor(authority: string, opts: UnaryChannelOptions) {
    this.#authority = authority;
    this.#opts = opts;
  }

  /** Connected now. */
  get ready(): boolean {
    const c = this.#conn;
    return !!c && c.connected && !c.closed && !c.goingAway;
  }

  /** The last attempt to connect failed (or the connection broke) and no connection has been made since. */
  get failing(): boolean {
    return this.#failed && !this.ready;
  }

  /** One call: the serialized request in, the serialized answer out (rejects with a GrpcError). */
  call(path: string, request: Uint8Array, deadlineMs?: number): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('etcd client closed'));
    return new Promise<Buffer>((resolve, reject) => {
      const call = new UnaryCall(resolve, reject);
      let stream: H2Stream;
      try {
        stream = this.#open(path, call, request);
      } catch (err) {
        reject(grpcError(Code.UNAVAILABLE, (err as Error).message));
        return;
      }
      if (deadlineMs) call.deadline(stream, deadlineMs);
    });
  }

  /**
   * A long-lived call (a bidirectional stream): the request's headers are sent, messages are the caller's
   * (bidi.ts). While open it counts as a call in flight: it keeps the process alive and keepalive pings on.
   */
  openStream(path: string, handler: H2StreamHandler): H2Stream {
    if (this.#closed) throw grpcError(Code.UNAVAILABLE, 'etcd client closed');
    try {
      return this.#open(path, handler);
    } catch (err) {
      throw grpcError(Code.UNAVAILABLE, (err as Error).message);
    }
  }

  /**
   * A stream on the connection, counted in flight until it closes (the connection's onStreamClose); with `message`,
   * a unary call's one request, sent with the headers and ending the stream.
   */
  #open(path: string, handler: H2StreamHandler, message?: Uint8Array): H2Stream {
    const conn = this.#ensureConnection();
    let block = this.#blocks.get(path);
    if (!block) {
      block = encodeLiterals([
        [':method', 'POST'],
        [':scheme', this.#opts.tls ? 'https' : 'http'],
        [':path', path],
        [':authority', this.#authority],
        ['content-type', 'application/grpc'],
        ['te', 'trailers'],
      ]);
      this.#blocks.set(path, block);
    }
    const stream = message ? conn.openUnary(block, message, handler) : conn.open(block, handler);
    this.#begin(conn);
    return stream;
  }

  /** A connection with calls in flight keeps the process alive; an idle one does not (as grpc-js's channels). */
  #begin(conn: H2Connection): void {
    this.#inflight++;
    const on = (this.#connCalls.get(conn) ?? 0) + 1;
    this.#connCalls.set(conn, on);
    if (on === 1) conn.ref();
  }

  #end(conn: H2Connection): void {
    this.#inflight--;
    const left = this.#connCalls.get(conn)! - 1;
    this.#connCalls.set(conn, left);
    if (left === 0) conn.unref();
  }

  #ensureConnection(): H2Connection {
    const c = this.#conn;
    if (c && !c.closed && !c.goingAway) return c;
    const conn: H2Connection = new H2Connection({
      authority: this.#authority,
      ...(this.#opts.tls ? { tls: this.#opts.tls } : {}),
      streamWindow: STREAM_WINDOW,
      connectionWindow: SESSION_WINDOW,
      onStreamClose: () => this.#end(conn),
      onConnect: () => {
        if (this.#conn === conn) this.#failed = false;
      },
      // No new streams on it; calls in flight finish or fail on their own.
      onGoaway: () => {
        if (this.#conn === conn) this.#conn = undefined;
      },
      // Gone while current (refused, reset, the member killed): the endpoint is failing until a connection succeeds.
      onClose: () => {
        if (this.#conn !== conn) return;
        this.#conn = undefined;
        this.#failed = true;
      },
    });
    this.#conn = conn;
    conn.unref();
    this.#startPinger();
    return conn;
  }

  #startPinger(): void {
    if (this.#pinger || this.#opts.keepaliveTimeMs <= 0) return;
    this.#pinger = setInterval(() => this.#keepalive(), this.#opts.keepaliveTimeMs);
    this.#pinger.unref();
  }

  #keepalive(): void {
    const c = this.#conn;
    if (!c || !this.ready || this.#inflight === 0 || this.#pingOutstanding) return;
    this.#pingOutstanding = true;
    const timer = setTimeout(() => {
      // No answer: the member or the path to it is gone without a FIN; fail the calls on it now.
      this.#failed = true;
      c.destroy(new Error('keepalive ping not answered'));
    }, this.#opts.keepaliveTimeoutMs);
    timer.unref();
    c.ping(() => {
      this.#pingOutstanding = false;
      clearTimeout(timer);
    });
  }

  close(): void {
    this.#closed = true;
    if (this.#pinger) clearInterval(this.#pinger);
    this.#conn?.close();
    this.#conn = undefined;
  }
}

/** One unary call's answer as it comes in (a class, not closures: tsx names every closure it creates, per call). */
class UnaryCall implements H2StreamHandler {
  readonly #resolve: (b: Buffer) => void;
  readonly #reject: (e: GrpcError) => void;
  readonly #status = new CallStatus();
  readonly #chunks: Buffer[] = [];
  #done = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(resolve: (b: Buffer) => void, reject: (e: GrpcError) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
  }

  deadline(stream: H2Stream, ms: number): void {
    this.#timer = setTimeout(() => {
      this.#finish(grpcError(Code.DEADLINE_EXCEEDED, 'Deadline exceeded'));
      stream.reset();
    }, ms);
  }

  onHeaders(fields: [string, string][]): void {
    this.#status.take(fields);
  }

  onData(chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onClose(end: StreamEnd): void {
    const err = this.#status.error(end);
    if (err) return this.#finish(err);
    const chunks = this.#chunks;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    if (body.length < 5 || body[0] !== 0) return this.#finish(grpcError(Code.INTERNAL, body.length < 5 ? 'answer without a message' : 'compressed answer not asked for'));
    const len = body.readUInt32BE(1);
    if (body.length < 5 + len) return this.#finish(grpcError(Code.INTERNAL, 'truncated answer'));
    this.#finish(undefined, body.subarray(5, 5 + len));
  }

  #finish(err: GrpcError | undefined, res?: Buffer): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#timer) clearTimeout(this.#timer);
    if (err) this.#reject(err);
    else this.#resolve(res!);
  }
}
