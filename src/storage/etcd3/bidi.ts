/**
 * A bidirectional gRPC stream (etcd's Watch) on an HTTP/2 stream of a UnaryChannel's session, in the shape the
 * watcher used from grpc-js (`write`, `cancel`, and 'data' / 'error' / 'end' events): grpc-js spends ~100–150 µs of
 * the API server's CPU per WatchResponse on its call layers, which on etcd is spent once more for every write the
 * server makes (bench/gaps.md, G14a). The wire format is unary.ts's: length-prefixed messages both ways, the status
 * in the trailers (or the headers of a trailers-only answer).
 */
import { EventEmitter } from 'node:events';
import http2 from 'node:http2';
import { Code, grpcError, statusOf, type GrpcError } from './unary.ts';

/** What a stream emits: each decoded message, then 'end' (grpc-status 0) or one 'error'. */
export interface BidiStreamEvents<Res> {
  data: [Res];
  error: [GrpcError];
  end: [];
}

export class BidiStream<Req, Res> extends EventEmitter<BidiStreamEvents<Res>> {
  readonly #stream: http2.ClientHttp2Stream;
  readonly #serialize: (r: Req) => Buffer;
  readonly #deserialize: (b: Buffer) => Res;
  /** Bytes of a message not yet complete (messages may span DATA frames, and frames hold several messages). */
  #pending: Buffer | undefined;
  #ended = false;

  constructor(stream: http2.ClientHttp2Stream, serialize: (r: Req) => Buffer, deserialize: (b: Buffer) => Res) {
    super();
    this.#stream = stream;
    this.#serialize = serialize;
    this.#deserialize = deserialize;
    // Kept: a closed stream no longer names its session.
    const session = stream.session;
    let httpStatus = 0;
    let status: { code: number; message: string } | undefined;
    stream.on('response', (h) => {
      httpStatus = Number(h[':status']);
      status = statusOf(h) ?? status;
    });
    stream.on('trailers', (h) => {
      status = statusOf(h) ?? status;
    });
    stream.on('data', (d: Buffer) => this.#onData(d));
    // The answer is complete (its status came); closing our side too lets 'close' come even from a server that
    // waits for it. Without a status the end is a reset, whose code 'close' reads.
    stream.on('end', () => {
      if (status && !stream.closed) stream.close();
    });
    // 'error' comes before 'close' when the stream or its connection fails; 'close' then ends it as UNAVAILABLE.
    let failure: string | undefined;
    stream.on('error', (err: Error) => {
      failure = err.message;
    });
    stream.on('close', () => {
      if (failure !== undefined) return this.#finish(grpcError(Code.UNAVAILABLE, failure));
      if (!status) {
        if (httpStatus && httpStatus !== 200) return this.#finish(grpcError(Code.UNAVAILABLE, `Received HTTP status code ${httpStatus}`));
        // As unary.ts: a connection that went away (its streams then read as cancelled) or a refused stream is
        // unavailability; a stream the server reset on its own is not.
        const rst = stream.rstCode;
        const dropped = !session || session.closed || session.destroyed || rst === http2.constants.NGHTTP2_REFUSED_STREAM;
        return this.#finish(dropped ? grpcError(Code.UNAVAILABLE, 'Connection dropped') : grpcError(Code.INTERNAL, `Received RST_STREAM with code ${rst}`));
      }
      this.#finish(status.code === 0 ? undefined : grpcError(status.code, status.message));
    });
  }

  /** Sends one message; false once the stream has ended. */
  write(req: Req): boolean {
    if (this.#ended || this.#stream.closed || this.#stream.destroyed) return false;
    const body = this.#serialize(req);
    const frame = Buffer.allocUnsafe(5 + body.length);
    frame[0] = 0;
    frame.writeUInt32BE(body.length, 1);
    body.copy(frame, 5);
    this.#stream.write(frame);
    return true;
  }

  /** Ends the stream from this side: one 'error' with CANCELLED follows (as grpc-js's cancel). */
  cancel(): void {
    if (this.#ended) return;
    this.#finish(grpcError(Code.CANCELLED, 'Cancelled on client'));
    if (!this.#stream.destroyed) this.#stream.close(http2.constants.NGHTTP2_CANCEL);
  }

  #onData(chunk: Buffer): void {
    let buf = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = undefined;
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
    if (!this.#ended && buf.length > 0) this.#pending = buf;
  }

  #abort(why: string): void {
    this.#finish(grpcError(Code.INTERNAL, why));
    if (!this.#stream.destroyed) this.#stream.close(http2.constants.NGHTTP2_CANCEL);
  }

  #finish(err: GrpcError | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#pending = undefined;
    if (err) this.emit('error', err);
    else this.emit('end');
  }
}
