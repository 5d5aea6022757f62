/**
 * Unary gRPC calls to one etcd endpoint on a node:http2 session of their own, without grpc-js's call stack: every
 * create, update and delete of the etcd backend is one unary Txn, and grpc-js's layers around the HTTP/2 stream
 * (resolving, retrying and load-balancing calls, interceptors, call credentials, metadata objects) cost about as much
 * CPU again as the stream itself (~400 against ~200 µs per Txn in a side-by-side run at c=64 on the bench machine).
 * The wire format is gRPC's over HTTP/2 (PROTOCOL-HTTP2.md): a POST to /package.Service/Method with
 * `content-type: application/grpc` and `te: trailers`, a body of length-prefixed messages, and the status in the
 * `grpc-status` / `grpc-message` trailers (or the headers of a trailers-only answer). Errors look like grpc-js's
 * (code, details, message "<code> <NAME>: <details>"), so callers cannot tell the two apart. Watch streams are
 * HTTP/2 streams of the same session (`openStream`, bidi.ts).
 */
import http2 from 'node:http2';
import { isIP } from 'node:net';
import type { SecureContextOptions } from 'node:tls';

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

/** The gRPC status in a HEADERS frame (trailers, or the headers of a trailers-only answer), if it carries one. */
export function statusOf(h: http2.IncomingHttpHeaders): { code: number; message: string } | undefined {
  if (h['grpc-status'] === undefined) return undefined;
  return { code: Number(h['grpc-status']), message: decodeMessage(h['grpc-message']) };
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
function decodeMessage(v: unknown): string {
  const s = typeof v === 'string' ? v : '';
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
  #session: http2.ClientHttp2Session | undefined;
  #connected = false;
  /** The last connection attempt failed and none has succeeded since (grpc's TRANSIENT_FAILURE). */
  #failed = false;
  #inflight = 0;
  readonly #sessionCalls = new WeakMap<http2.ClientHttp2Session, number>();
  #closed = false;
  #pinger: NodeJS.Timeout | undefined;
  #pingOutstanding = false;

  constructor(authority: string, opts: UnaryChannelOptions) {
    this.#authority = authority;
    this.#opts = opts;
  }

  /** Connected now. */
  get ready(): boolean {
    return this.#connected && !!this.#session && !this.#session.closed && !this.#session.destroyed;
  }

  /** The last attempt to connect failed (or the connection broke) and no connection has been made since. */
  get failing(): boolean {
    return this.#failed && !this.ready;
  }

  /** One call: the serialized request in, the serialized answer out (rejects with a GrpcError). */
  call(path: string, request: Buffer, deadlineMs?: number): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new Error('etcd client closed'));
    let session: http2.ClientHttp2Session;
    try {
      session = this.#ensureSession();
    } catch (err) {
      return Promise.reject(grpcError(Code.UNAVAILABLE, (err as Error).message));
    }
    return new Promise<Buffer>((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
      } catch (err) {
        reject(grpcError(Code.UNAVAILABLE, (err as Error).message));
        return;
      }
      this.#begin(session);
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (err: GrpcError | undefined, res?: Buffer) => {
        if (done) return;
        done = true;
        this.#end(session);
        if (timer) clearTimeout(timer);
        if (err) reject(err);
        else resolve(res!);
      };
      if (deadlineMs) {
        timer = setTimeout(() => {
          finish(grpcError(Code.DEADLINE_EXCEEDED, 'Deadline exceeded'));
          stream.close(http2.constants.NGHTTP2_CANCEL);
        }, deadlineMs);
      }
      let httpStatus = 0;
      let grpcStatus: number | undefined;
      let grpcMessage = '';
      const chunks: Buffer[] = [];
      const takeStatus = (h: http2.IncomingHttpHeaders) => {
        const st = statusOf(h);
        if (!st) return;
        grpcStatus = st.code;
        grpcMessage = st.message;
      };
      stream.on('response', (h) => {
        httpStatus = Number(h[':status']);
        takeStatus(h);
      });
      stream.on('trailers', takeStatus);
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.on('error', (err: Error) => {
        // The stream or its connection failed before an answer: the member may have applied a write or not.
        finish(grpcError(Code.UNAVAILABLE, err.message));
      });
      stream.on('close', () => {
        if (done) return;
        if (grpcStatus === undefined) {
          if (httpStatus && httpStatus !== 200) return finish(grpcError(httpStatusCode(httpStatus), `Received HTTP status code ${httpStatus}`));
          const rst = stream.rstCode;
          const dropped = session.closed || session.destroyed || rst === http2.constants.NGHTTP2_REFUSED_STREAM;
          return finish(grpcError(dropped ? Code.UNAVAILABLE : Code.INTERNAL, dropped ? 'Connection dropped' : `Received RST_STREAM with code ${rst}`));
        }
        if (grpcStatus !== 0) return finish(grpcError(grpcStatus, grpcMessage));
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        if (body.length < 5 || body[0] !== 0) return finish(grpcError(Code.INTERNAL, body.length < 5 ? 'answer without a message' : 'compressed answer not asked for'));
        const len = body.readUInt32BE(1);
        if (body.length < 5 + len) return finish(grpcError(Code.INTERNAL, 'truncated answer'));
        finish(undefined, body.subarray(5, 5 + len));
      });
      const frame = Buffer.allocUnsafe(5 + request.length);
      frame[0] = 0;
      frame.writeUInt32BE(request.length, 1);
      request.copy(frame, 5);
      stream.end(frame);
    });
  }

  /**
   * A long-lived call (a bidirectional stream) on the session: the request's headers are sent, messages are the
   * caller's (bidi.ts). While open it counts as a call in flight: it keeps the process alive and keepalive pings on.
   */
  openStream(path: string): http2.ClientHttp2Stream {
    if (this.#closed) throw grpcError(Code.UNAVAILABLE, 'etcd client closed');
    let session: http2.ClientHttp2Session;
    let stream: http2.ClientHttp2Stream;
    try {
      session = this.#ensureSession();
      stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' }, { endStream: false });
    } catch (err) {
      throw grpcError(Code.UNAVAILABLE, (err as Error).message);
    }
    this.#begin(session);
    stream.once('close', () => this.#end(session));
    return stream;
  }

  /** A session with calls in flight keeps the process alive; an idle one does not (as grpc-js's channels). */
  #begin(session: http2.ClientHttp2Session): void {
    this.#inflight++;
    const onSession = (this.#sessionCalls.get(session) ?? 0) + 1;
    this.#sessionCalls.set(session, onSession);
    if (onSession === 1) session.ref();
  }

  #end(session: http2.ClientHttp2Session): void {
    this.#inflight--;
    const left = this.#sessionCalls.get(session)! - 1;
    this.#sessionCalls.set(session, left);
    if (left === 0 && !session.destroyed) session.unref();
  }

  #ensureSession(): http2.ClientHttp2Session {
    const s = this.#session;
    if (s && !s.closed && !s.destroyed) return s;
    const tls = this.#opts.tls;
    const session = http2.connect(`${tls ? 'https' : 'http'}://${this.#authority}`, {
      ...(tls ?? {}),
      // No SNI for an IP address (RFC 6066; node warns otherwise); the certificate is still checked against the IP.
      ...(tls && isIP(this.#authority.replace(/^\[|\]?:\d+$/g, '')) ? { servername: '' } : {}),
      // grpc-js does the same: answers are bounded by what etcd sends, not by node's default 10 MB per session.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
    });
    this.#session = session;
    this.#connected = false;
    session.once('connect', () => {
      if (this.#session !== session) return;
      this.#connected = true;
      this.#failed = false;
      session.setLocalWindowSize(SESSION_WINDOW);
    });
    // Calls on the session see the failure through their streams; here only the channel's state.
    session.on('error', () => {
      if (this.#session === session) this.#failed = true;
    });
    session.once('goaway', () => {
      // No new streams on it; calls in flight finish or fail on their own.
      if (this.#session === session) this.#session = undefined;
    });
    session.once('close', () => {
      if (this.#session !== session) return;
      this.#session = undefined;
      this.#connected = false;
    });
    session.unref();
    this.#startPinger();
    return session;
  }

  #startPinger(): void {
    if (this.#pinger || this.#opts.keepaliveTimeMs <= 0) return;
    this.#pinger = setInterval(() => this.#keepalive(), this.#opts.keepaliveTimeMs);
    this.#pinger.unref();
  }

  #keepalive(): void {
    const s = this.#session;
    if (!s || !this.ready || this.#inflight === 0 || this.#pingOutstanding) return;
    this.#pingOutstanding = true;
    const timer = setTimeout(() => {
      // No answer: the member or the path to it is gone without a FIN; fail the calls on it now.
      this.#failed = true;
      s.destroy(new Error('keepalive ping not answered'));
    }, this.#opts.keepaliveTimeoutMs);
    timer.unref();
    try {
      s.ping(() => {
        this.#pingOutstanding = false;
        clearTimeout(timer);
      });
    } catch {
      this.#pingOutstanding = false;
      clearTimeout(timer);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#pinger) clearInterval(this.#pinger);
    this.#session?.close();
    this.#session = undefined;
  }
}
