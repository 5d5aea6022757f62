/**
 * A client HTTP/2 connection (RFC 7540) framed here, on one net or TLS socket per etcd member, for the etcd client's
 * gRPC calls. Written by hand because Node 20's `ClientHttp2Session.request()` costs ~165 µs of CPU per stream (a
 * Duplex, an AsyncResource bound through two `deprecate()` wrappers, header objects, listeners: bench/gaps.md, G14a)
 * and every create on etcd is one stream; here a call is a prebuilt HEADERS block, one DATA frame and a few
 * callbacks, and the frames of one turn of the event loop leave in one write.
 *
 * What a gRPC client needs and no more: requests with fixed headers (literals, hpack.ts), both flow-control windows
 * each way, SETTINGS, PING (keepalive and the peer's), GOAWAY, RST_STREAM, CONTINUATION. No server push (disabled in
 * our SETTINGS), no priorities (ignored), no trailers from this side.
 */
import net from 'node:net';
import tls from 'node:tls';
import { HpackDecoder, HpackError } from './hpack.ts';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

const enum T {
  DATA = 0,
  HEADERS = 1,
  PRIORITY = 2,
  RST_STREAM = 3,
  SETTINGS = 4,
  PUSH_PROMISE = 5,
  PING = 6,
  GOAWAY = 7,
  WINDOW_UPDATE = 8,
  CONTINUATION = 9,
}
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY_FLAG = 0x20;

/** HTTP/2 error codes (RFC 7540 §7), by number. */
const ErrorCode = { NO_ERROR: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2, FLOW_CONTROL_ERROR: 3, FRAME_SIZE_ERROR: 6, REFUSED_STREAM: 7, CANCEL: 8, COMPRESSION_ERROR: 9 } as const;
const ERROR_NAMES = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR', 'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'];
export const errorName = (code: number): string => ERROR_NAMES[code] ?? `code ${code}`;

/** The frame size every peer must accept (we advertise no larger, so none larger may come). */
const MAX_FRAME = 16384;
const DEFAULT_WINDOW = 65535;
const MAX_WINDOW = 2 ** 31 - 1;

/**
 * How a stream ended: both sides done; reset (by the peer, or by us with `local`); or its connection is gone
 * (`dropped`: the socket's error, e.g. "connect ECONNREFUSED …", or "Connection dropped" when it just closed).
 */
export type StreamEnd = { ok: true } | { ok: false; rstCode: number; local?: boolean } | { ok: false; dropped: string };

export interface H2StreamHandler {
  /** A complete header block: the response headers, or the trailers (`endStream`). */
  onHeaders(fields: [string, string][], endStream: boolean): void;
  onData(chunk: Buffer): void;
  /** Last call for the stream. */
  onClose(end: StreamEnd): void;
}

export interface H2ConnectionOptions {
  /** host:port ([v6]:port). */
  authority: string;
  tls?: tls.SecureContextOptions;
  /** Our receive windows: a list of a whole resource is one message of up to hundreds of MB. */
  streamWindow: number;
  connectionWindow: number;
  /** After each stream's handler heard its end. */
  onStreamClose?: () => void;
  /** The connection is usable (connected, TLS and ALPN agreed). */
  onConnect?: () => void;
  /** The peer sent GOAWAY: no new streams here. */
  onGoaway?: () => void;
  /** The socket is gone; `error` says why, when it failed. */
  onClose?: (error: Error | undefined) => void;
}

export class H2Stream {
  readonly id: number;
  readonly #conn: H2Connection;
  readonly handler: H2StreamHandler;
  sendWindow: number;
  recvUnacked = 0;
  localEnded = false;
  remoteEnded = false;
  closed = false;
  /** Data waiting for window, in order. */
  readonly queue: { data: Buffer; end: boolean }[] = [];

  constructor(conn: H2Connection, id: number, handler: H2StreamHandler, sendWindow: number) {
    this.#conn = conn;
    this.id = id;
    this.handler = handler;
    this.sendWindow = sendWindow;
  }

  /** Sends data, with END_STREAM when `end`. Ignored once the stream is closed or our side ended. */
  write(data: Buffer, end = false): void {
    if (this.closed || this.localEnded) return;
    if (end) this.localEnded = true;
    this.queue.push({ data, end });
    this.#conn.flush(this);
  }

  /** Resets the stream (CANCEL unless told); the handler hears `{ rstCode, local: true }`. */
  reset(code: number = ErrorCode.CANCEL): void {
    this.#conn.resetStream(this, code);
  }
}

export class H2Connection {
  readonly #opts: H2ConnectionOptions;
  readonly #socket: net.Socket;
  readonly #streams = new Map<number, H2Stream>();
  readonly #decoder = new HpackDecoder();
  #nextId = 1;
  #sendWindow = DEFAULT_WINDOW;
  #peerInitialWindow = DEFAULT_WINDOW;
  #peerMaxFrame = MAX_FRAME;
  #recvUnacked = 0;
  /** Streams with data held back by the connection's send window. */
  readonly #blocked = new Set<H2Stream>();
  #rest: Buffer | undefined;
  /** A header block still waiting for its CONTINUATION frames. */
  #partial: { id: number; parts: Buffer[]; endStream: boolean } | undefined;
  #corked = false;
  #pings: ((err?: Error) => void)[] = [];
  #error: Error | undefined;
  connected = false;
  goingAway = false;
  closed = false;

  constructor(opts: H2ConnectionOptions) {
    this.#opts = opts;
    const { host, port } = splitAuthority(opts.authority);
    if (opts.tls) {
      this.#socket = tls.connect({
        ...opts.tls,
        host,
        port,
        ALPNProtocols: ['h2'],
        // No SNI for an IP address (RFC 6066); the certificate is still checked against the IP.
        ...(net.isIP(host) ? {} : { servername: host }),
      });
      this.#socket.once('secureConnect', () => {
        if ((this.#socket as tls.TLSSocket).alpnProtocol !== 'h2') return this.destroy(new Error(`${opts.authority} did not agree to HTTP/2 (ALPN)`));
        this.#connected();
      });
    } else {
      this.#socket = net.connect({ host, port });
      this.#socket.once('connect', () => this.#connected());
    }
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (d: Buffer) => this.#onData(d));
    this.#socket.on('error', (err) => {
      this.#error ??= err;
    });
    this.#socket.on('close', () => this.#onClose());
    // The preface and our SETTINGS go first; requests may follow before the peer's SETTINGS arrive (§3.5).
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(0x2, 0); // ENABLE_PUSH
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(0x4, 6); // INITIAL_WINDOW_SIZE
    settings.writeUInt32BE(opts.streamWindow, 8);
    this.#send(Buffer.concat([PREFACE, frame(T.SETTINGS, 0, 0, settings)]));
    if (opts.connectionWindow > DEFAULT_WINDOW) this.#windowUpdate(0, opts.connectionWindow - DEFAULT_WINDOW);
  }

  /** Opens a stream with a prebuilt HPACK block (literals only: nothing in the peer's table depends on order). */
  open(headerBlock: Buffer, handler: H2StreamHandler): H2Stream {
    const s = this.#newStream(headerBlock, handler);
    this.#send(frame(T.HEADERS, END_HEADERS, s.id, headerBlock));
    return s;
  }

  #newStream(headerBlock: Buffer, handler: H2StreamHandler): H2Stream {
    if (this.closed || this.goingAway) throw new Error(this.closed ? 'connection closed' : 'connection going away');
    if (headerBlock.length > this.#peerMaxFrame) throw new Error('header block larger than a frame');
    const id = this.#nextId;
    if (id > MAX_WINDOW) {
      this.goingAway = true;
      throw new Error('stream identifiers used up');
    }
    this.#nextId += 2;
    const s = new H2Stream(this, id, handler, this.#peerInitialWindow);
    this.#streams.set(id, s);
    return s;
  }

  /**
   * A stream for one gRPC message, sent at once and ending it: HEADERS, then DATA with the message behind its 5-byte
   * gRPC prefix. When the windows and frame size allow (a Txn of a few KB, nearly always) both frames are built in
   * one buffer and written once (three writes and two copies less per call than open + write); else as open + write.
   */
  openUnary(headerBlock: Buffer, message: Uint8Array, handler: H2StreamHandler): H2Stream {
    const n = 5 + message.length;
    if (n > this.#peerInitialWindow || n > this.#sendWindow || n > this.#peerMaxFrame) {
      const s = this.open(headerBlock, handler);
      const data = Buffer.allocUnsafe(n);
      data[0] = 0;
      data.writeUInt32BE(message.length, 1);
      data.set(message, 5);
      s.write(data, true);
      return s;
    }
    const s = this.#newStream(headerBlock, handler);
    const h = headerBlock.length;
    const b = Buffer.allocUnsafe(9 + h + 9 + n);
    writeFrameHeader(b, 0, h, T.HEADERS, END_HEADERS, s.id);
    headerBlock.copy(b, 9);
    writeFrameHeader(b, 9 + h, n, T.DATA, END_STREAM, s.id);
    b[18 + h] = 0;
    b.writeUInt32BE(message.length, 19 + h);
    b.set(message, 23 + h);
    s.localEnded = true;
    s.sendWindow -= n;
    this.#sendWindow -= n;
    this.#send(b);
    return s;
  }

  /** Sends what the windows allow of a stream's queued data. */
  flush(s: H2Stream): void {
    while (s.queue.length && !s.closed && !this.closed) {
      const item = s.queue[0]!;
      const n = Math.min(item.data.length, s.sendWindow, this.#sendWindow, this.#peerMaxFrame);
      if (n <= 0 && item.data.length > 0) {
        if (this.#sendWindow <= 0) this.#blocked.add(s);
        return;
      }
      const last = n === item.data.length;
      this.#send(frameHeader(n, T.DATA, last && item.end ? END_STREAM : 0, s.id));
      if (n > 0) this.#send(n === item.data.length ? item.data : item.data.subarray(0, n));
      s.sendWindow -= n;
      this.#sendWindow -= n;
      if (last) s.queue.shift();
      else item.data = item.data.subarray(n);
    }
  }

  resetStream(s: H2Stream, code: number): void {
    if (s.closed) return;
    if (!this.closed) {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(code, 0);
      this.#send(frame(T.RST_STREAM, 0, s.id, b));
    }
    this.#closeStream(s, { ok: false, rstCode: code, local: true });
  }

  /** A PING; `done` runs on its ACK, or with an error if the connection goes first. */
  ping(done: (err?: Error) => void): void {
    if (this.closed) return done(new Error('connection closed'));
    this.#pings.push(done);
    this.#send(frame(T.PING, 0, 0, Buffer.alloc(8)));
  }

  ref(): void {
    this.#socket.ref();
  }

  unref(): void {
    this.#socket.unref();
  }

  /** GOAWAY (when connected) and the socket closed: streams still open end as dropped. */
  close(code: number = ErrorCode.NO_ERROR): void {
    if (this.closed) return;
    if (this.connected) {
      const b = Buffer.alloc(8);
      b.writeUInt32BE(0, 0);
      b.writeUInt32BE(code, 4);
      this.#send(frame(T.GOAWAY, 0, 0, b));
    }
    this.#socket.end();
    this.goingAway = true;
  }

  destroy(err?: Error): void {
    if (err) this.#error ??= err;
    this.#socket.destroy();
  }

  #connected(): void {
    this.connected = true;
    this.#opts.onConnect?.();
  }

  /**
   * Writes; everything written in one turn of the event loop leaves in one system call (as node:http2 flushes once
   * per turn): the calls of many requests handled in one turn share a packet, for us and for etcd.
   */
  #send(b: Buffer): void {
    if (this.#socket.destroyed) return;
    if (!this.#corked) {
      this.#corked = true;
      this.#socket.cork();
      setImmediate(() => {
        this.#corked = false;
        this.#socket.uncork();
      });
    }
    this.#socket.write(b);
  }

  #windowUpdate(id: number, n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n, 0);
    this.#send(frame(T.WINDOW_UPDATE, 0, id, b));
  }

  /** A connection error (§5.4.1): GOAWAY with the code, then the socket goes. */
  #fail(code: number, why: string): void {
    if (this.closed) return;
    this.#error ??= new Error(`HTTP/2 ${errorName(code)} from ${this.#opts.authority}: ${why}`);
    const b = Buffer.alloc(8);
    b.writeUInt32BE(Math.max(0, this.#nextId - 2), 0);
    b.writeUInt32BE(code, 4);
    this.#send(frame(T.GOAWAY, 0, 0, b));
    this.closed = true;
    this.#socket.end();
    setTimeout(() => this.#socket.destroy(), 1000).unref();
    this.#dropAll();
  }

  #onData(chunk: Buffer): void {
    // What is left over is at most one frame's worth, so joining it to the next chunk stays linear.
    const b = this.#rest ? Buffer.concat([this.#rest, chunk]) : chunk;
    this.#rest = undefined;
    let p = 0;
    while (b.length - p >= 9 && !this.closed) {
      const len = (b[p]! << 16) | (b[p + 1]! << 8) | b[p + 2]!;
      if (len > MAX_FRAME) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, `a frame of ${len} bytes`);
      if (b.length - p < 9 + len) break;
      const type = b[p + 3]!;
      const flags = b[p + 4]!;
      const id = b.readUInt32BE(p + 5) & 0x7fffffff;
      const payload = b.subarray(p + 9, p + 9 + len);
      p += 9 + len;
      this.#frame(type, flags, id, payload);
    }
    if (p < b.length && !this.closed) this.#rest = b.subarray(p);
  }

  #frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.#partial && type !== T.CONTINUATION) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'a header block interrupted');
    switch (type) {
      case T.DATA:
        return this.#onDataFrame(flags, id, payload);
      case T.HEADERS: {
        if (id === 0) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'HEADERS on stream 0');
        let body = payload;
        if (flags & PADDED) {
          const pad = body[0] ?? 0;
          if (pad >= body.length) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'padding beyond the frame');
          body = body.subarray(1, body.length - pad);
        }
        if (flags & PRIORITY_FLAG) body = body.subarray(5);
        const block = { id, parts: [body], endStream: (flags & END_STREAM) !== 0 };
        if (flags & END_HEADERS) return this.#onHeaderBlock(block);
        this.#partial = block;
        return;
      }
      case T.CONTINUATION: {
        const block = this.#partial;
        if (!block || block.id !== id) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'CONTINUATION without its HEADERS');
        block.parts.push(payload);
        if (flags & END_HEADERS) {
          this.#partial = undefined;
          this.#onHeaderBlock(block);
        }
        return;
      }
      case T.RST_STREAM: {
        if (payload.length !== 4) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, 'RST_STREAM not 4 bytes');
        const s = this.#streams.get(id);
        if (s) this.#closeStream(s, { ok: false, rstCode: payload.readUInt32BE(0) });
        return;
      }
      case T.SETTINGS:
        return this.#onSettings(flags, id, payload);
      case T.PUSH_PROMISE:
        return this.#fail(ErrorCode.PROTOCOL_ERROR, 'PUSH_PROMISE with push disabled');
      case T.PING:
        if (payload.length !== 8) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, 'PING not 8 bytes');
        if (flags & ACK) this.#pings.shift()?.();
        else this.#send(frame(T.PING, ACK, 0, payload));
        return;
      case T.GOAWAY: {
        if (payload.length < 8) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, 'GOAWAY under 8 bytes');
        const last = payload.readUInt32BE(0) & 0x7fffffff;
        this.goingAway = true;
        // Streams above the last one the peer took were never processed: refused, safe to send elsewhere.
        for (const s of [...this.#streams.values()]) if (s.id > last) this.#closeStream(s, { ok: false, rstCode: ErrorCode.REFUSED_STREAM });
        this.#opts.onGoaway?.();
        if (this.#streams.size === 0) this.#socket.end();
        return;
      }
      case T.WINDOW_UPDATE: {
        if (payload.length !== 4) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, 'WINDOW_UPDATE not 4 bytes');
        const inc = payload.readUInt32BE(0) & 0x7fffffff;
        if (id === 0) {
          if (inc === 0) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'a window increment of 0');
          this.#sendWindow += inc;
          if (this.#sendWindow > MAX_WINDOW) return this.#fail(ErrorCode.FLOW_CONTROL_ERROR, 'connection window above 2^31-1');
          const waiting = [...this.#blocked];
          this.#blocked.clear();
          for (const s of waiting) this.flush(s);
        } else {
          const s = this.#streams.get(id);
          if (!s) return;
          if (inc === 0 || s.sendWindow + inc > MAX_WINDOW) return this.resetStream(s, inc === 0 ? ErrorCode.PROTOCOL_ERROR : ErrorCode.FLOW_CONTROL_ERROR);
          s.sendWindow += inc;
          this.flush(s);
        }
        return;
      }
      default:
        return; // PRIORITY and unknown types are ignored (§5.5)
    }
  }

  #onDataFrame(flags: number, id: number, payload: Buffer): void {
    if (id === 0) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'DATA on stream 0');
    // The whole frame counts against the windows, padding included (§6.9.1).
    this.#recvUnacked += payload.length;
    if (this.#recvUnacked >= this.#opts.connectionWindow / 2) {
      this.#windowUpdate(0, this.#recvUnacked);
      this.#recvUnacked = 0;
    }
    const s = this.#streams.get(id);
    if (!s) return; // a stream we reset: its data still counted for the connection
    let body = payload;
    if (flags & PADDED) {
      const pad = body[0] ?? 0;
      if (pad >= body.length) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'padding beyond the frame');
      body = body.subarray(1, body.length - pad);
    }
    const end = (flags & END_STREAM) !== 0;
    s.recvUnacked += payload.length;
    if (!end && s.recvUnacked >= this.#opts.streamWindow / 2) {
      this.#windowUpdate(s.id, s.recvUnacked);
      s.recvUnacked = 0;
    }
    if (body.length) s.handler.onData(body);
    if (end) this.#remoteEnd(s);
  }

  #onHeaderBlock(block: { id: number; parts: Buffer[]; endStream: boolean }): void {
    let fields: [string, string][];
    try {
      // Decoded even for a stream gone from the map: the dynamic table must see every block.
      fields = this.#decoder.decode(block.parts.length === 1 ? block.parts[0]! : Buffer.concat(block.parts));
    } catch (err) {
      return this.#fail(ErrorCode.COMPRESSION_ERROR, err instanceof HpackError ? err.message : String(err));
    }
    const s = this.#streams.get(block.id);
    if (!s) return;
    s.handler.onHeaders(fields, block.endStream);
    if (block.endStream) this.#remoteEnd(s);
  }

  /** The peer ended its side: a gRPC answer is complete, so ours ends too (a reset with NO_ERROR if still open). */
  #remoteEnd(s: H2Stream): void {
    if (s.closed) return;
    s.remoteEnded = true;
    if (!s.localEnded || s.queue.length) {
      const b = Buffer.alloc(4);
      this.#send(frame(T.RST_STREAM, 0, s.id, b));
    }
    this.#closeStream(s, { ok: true });
  }

  #onSettings(flags: number, id: number, payload: Buffer): void {
    if (id !== 0) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & ACK) return;
    if (payload.length % 6) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, 'SETTINGS not a multiple of 6 bytes');
    for (let p = 0; p < payload.length; p += 6) {
      const key = payload.readUInt16BE(p);
      const value = payload.readUInt32BE(p + 2);
      if (key === 0x4) {
        if (value > MAX_WINDOW) return this.#fail(ErrorCode.FLOW_CONTROL_ERROR, 'INITIAL_WINDOW_SIZE above 2^31-1');
        const delta = value - this.#peerInitialWindow;
        this.#peerInitialWindow = value;
        for (const s of this.#streams.values()) s.sendWindow += delta;
      } else if (key === 0x5) {
        if (value < MAX_FRAME || value > 2 ** 24 - 1) return this.#fail(ErrorCode.PROTOCOL_ERROR, 'MAX_FRAME_SIZE out of range');
        this.#peerMaxFrame = value;
      }
      // HEADER_TABLE_SIZE limits the peer's decoder, which our literals never fill; MAX_CONCURRENT_STREAMS is
      // unbounded on etcd (its gRPC server sets 2^32-1); a refusal would come back as REFUSED_STREAM.
    }
    this.#send(frame(T.SETTINGS, ACK, 0, Buffer.alloc(0)));
    for (const s of [...this.#streams.values()]) this.flush(s);
  }

  #closeStream(s: H2Stream, end: StreamEnd): void {
    if (s.closed) return;
    s.closed = true;
    this.#streams.delete(s.id);
    this.#blocked.delete(s);
    s.handler.onClose(end);
    this.#opts.onStreamClose?.();
    if (this.goingAway && this.#streams.size === 0 && !this.closed) this.#socket.end();
  }

  #dropAll(): void {
    const why = this.#error?.message ?? 'Connection dropped';
    for (const s of [...this.#streams.values()]) this.#closeStream(s, { ok: false, dropped: why });
    for (const p of this.#pings.splice(0)) p(new Error(why));
  }

  #onClose(): void {
    const wasClosed = this.closed;
    this.closed = true;
    this.connected = false;
    if (!wasClosed) this.#dropAll();
    this.#opts.onClose?.(this.#error);
  }
}

function frameHeader(len: number, type: number, flags: number, id: number): Buffer {
  const h = Buffer.allocUnsafe(9);
  writeFrameHeader(h, 0, len, type, flags, id);
  return h;
}

function writeFrameHeader(b: Buffer, at: number, len: number, type: number, flags: number, id: number): void {
  b[at] = (len >> 16) & 0xff;
  b[at + 1] = (len >> 8) & 0xff;
  b[at + 2] = len & 0xff;
  b[at + 3] = type;
  b[at + 4] = flags;
  b.writeUInt32BE(id, at + 5);
}

function frame(type: number, flags: number, id: number, payload: Buffer): Buffer {
  const f = Buffer.allocUnsafe(9 + payload.length);
  f[0] = (payload.length >> 16) & 0xff;
  f[1] = (payload.length >> 8) & 0xff;
  f[2] = payload.length & 0xff;
  f[3] = type;
  f[4] = flags;
  f.writeUInt32BE(id, 5);
  payload.copy(f, 9);
  return f;
}

function splitAuthority(a: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(a) ?? /^([^:]+):(\d+)$/.exec(a);
  if (!m) throw new Error(`not host:port: ${a}`);
  return { host: m[1]!, port: Number(m[2]) };
}
