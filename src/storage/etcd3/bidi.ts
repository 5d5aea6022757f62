/**
 * A bidirectional gRPC stream (etcd's Watch) on an HTTP/2 stream of a UnaryChannel's connection, in the shape the
 * watcher used from grpc-js (`write`, `cancel`, and 'data' / 'error' / 'end' events): grpc-js spends ~100–150 µs of
 * the API server's CPU per WatchResponse on its call layers, which on etcd is spent once more for every write the
 * server makes (bench/gaps.md, G14a). The wire format is unary.ts's: length-prefixed messages both ways, the status
 * in the trailers (or the headers of a trailers-only answer).
 */
import { EventEmitter } from 'node:events';
import type { H2Stream, H2StreamHandler } from './h2.ts';
import { CallStatus, Code, grpcError, type GrpcError } from './unary.ts';

/** What a stream emits: each decoded message, then 'end' (grpc-status 0) or one 'error'. */
export interface BidiStreamEvents<Res> {
  data: [Res];
  error: [GrpcError];
  end: [];
}

export class BidiStream<Req, Res> extends EventEmitter<BidiStreamEvents<Res>> {
  readonly #stream: H2Stream;
  readonly #serialize: (r: Req) => Uint8Array;
  readonly #deserialize: (b: Buffer) => Res;
  // Bytes of a message not yet whole (messages span DATA frames, and frames hold several), kept as they came: a large
  // message (a mass delete's watch event) arrives in hundreds of frames, and joining on each would copy it each time.
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The length of the message being gathered, once its 5-byte prefix is in. */
  #need = -1;
  #ended = false;

  /** `open` starts the HTTP/2 stream with the handler given (UnaryChannel.openStream); it may throw a GrpcError. */
  constructor(open: (h: H2StreamHandler) => H2Stream, serialize: (r: Req) => Uint8Array, deserialize: (b: Buffer) => Res) {
    super();
    this.#serialize = serialize;
    this.#deserialize = deserialize;
    const status = new CallStatus();
    this.#stream = open({
      onHeaders: (fields) => status.take(fields),
      onData: (d) => this.#onData(d),
      onClose: (end) => this.#finish(status.error(end)),
    });
  }

  /** Sends one message; false once the stream has ended. */
  write(req: Req): boolean {
    if (this.#ended || this.#stream.closed) return false;
    const body = this.#serialize(req);
    const frame = Buffer.allocUnsafe(5 + body.length);
    frame[0] = 0;
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    this.#stream.write(frame);
    return true;
  }

  /** Ends the stream from this side: one 'error' with CANCELLED follows (as grpc-js's cancel). */
  cancel(): void {
    if (this.#ended) return;
    this.#finish(grpcError(Code.CANCELLED, 'Cancelled on client'));
    this.#stream.reset();
  }

  #onData(chunk: Buffer): void {
    let buf = chunk;
    if (this.#pendingBytes > 0) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      if (this.#need < 0 && this.#pendingBytes >= 5) this.#need = 5 + Buffer.concat(this.#pending, 5).readUInt32BE(1);
      if (this.#need < 0 || this.#pendingBytes < this.#need) return;
      buf = Buffer.concat(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#need = -1;
    }
    while (!this.#ended && buf.length >= 5) {
      const len = buf.readUInt32BE(1);
      if (buf.length < 5 + len) break;
      if (buf[0] !== 0) return this.#abort('compressed message not asked for');
      let msg: Res;
      try {
        msg = this.#deserialize(buf.subarray(5, 5 + len));
      } catch (err) {
        return this.#abort(`cannot decode a message: ${(err as Error).message}`);
      }
      buf = buf.subarray(5 + len);
      this.emit('data', msg);
    }
    if (!this.#ended && buf.length > 0) {
      this.#pending = [buf];
      this.#pendingBytes = buf.length;
      this.#need = buf.length >= 5 ? 5 + buf.readUInt32BE(1) : -1;
    }
  }

  #abort(why: string): void {
    this.#finish(grpcError(Code.INTERNAL, why));
    this.#stream.reset();
  }

  #finish(err: GrpcError | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    if (err) this.emit('error', err);
    else this.emit('end');
  }
}
