/**
 * A small etcd v3 client (see proto.ts for why not the `etcd3` package): unary KV, Lease and Maintenance calls on an
 * HTTP/2 session per endpoint of `--etcd-servers` (unary.ts: gRPC's wire format without grpc-js's per-call cost), and
 * watch streams on the same sessions (bidi.ts). Calls go to the current endpoint and
 * move on to the next one when it is unavailable. Reads (Range, Status) are retried on the next endpoint, since
 * repeating them is harmless; writes are not: a write whose answer was lost may have been applied, and only the
 * caller can tell whether repeating it is safe (a create would then find its own key).
 */
import { readFileSync } from 'node:fs';
import { parseEndpoint, type Endpoint } from './endpoint.ts';
import type { SecureContextOptions } from 'node:tls';
import { methods, watchMethod, type StatusResponse, type WatchRequest, type WatchResponse } from './proto.ts';
import { BidiStream } from './bidi.ts';
import { Code, UnaryChannel, type GrpcError } from './unary.ts';

export { parseEndpoint, type Endpoint } from './endpoint.ts';

export interface EtcdTlsFiles {
  /** --etcd-cafile: CA bundle to verify the servers with. */
  caFile?: string;
  /** --etcd-certfile / --etcd-keyfile: client certificate and key (mutual TLS). */
  certFile?: string;
  keyFile?: string;
}

export interface EtcdClientOptions extends EtcdTlsFiles {
  /** Endpoint URLs, `http://host:port` or `https://host:port` (upstream's --etcd-servers). */
  endpoints: string[];
}

export type { GrpcError } from './unary.ts';

export function isGrpcError(err: unknown): err is GrpcError {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number';
}

/** The endpoint is down or the connection broke: another endpoint may answer. */
export function isUnavailable(err: unknown): boolean {
  return isGrpcError(err) && err.code === Code.UNAVAILABLE;
}

export const ErrCompacted = 'etcdserver: mvcc: required revision has been compacted';
export const ErrFutureRev = 'etcdserver: mvcc: required revision is a future revision';
export const ErrLeaseNotFound = 'etcdserver: requested lease not found';

type Methods = typeof methods;
type ReqOf<K extends keyof Methods> = Parameters<Methods[K]['serialize']>[0];
type ResOf<K extends keyof Methods> = ReturnType<Methods[K]['deserialize']>;

/** How long an endpoint that failed as unavailable is avoided while its channel is not READY again. */
const DOWN_FOR_MS = 5_000;

/** Reads: safe to repeat on another endpoint after UNAVAILABLE. */
const IDEMPOTENT = new Set<keyof Methods>(['range', 'status']);

export class EtcdClient {
  readonly endpoints: readonly Endpoint[];
  /** Unary calls and watch streams, one HTTP/2 connection per endpoint. */
  readonly #unary: UnaryChannel[];
  #current = 0;
  #closed = false;
  /**
   * Until when each endpoint counts as down after a call to it failed as unavailable: a restarted channel spends
   * most of its time CONNECTING, not TRANSIENT_FAILURE, and calls must not keep going to a dead member meanwhile.
   */
  readonly #downUntil: number[];
  /** The endpoint each watch stream was opened on (a stream failure speaks only for its own endpoint). */
  readonly #streamEndpoint = new WeakMap<object, number>();

  constructor(opts: EtcdClientOptions) {
    if (opts.endpoints.length === 0) throw new Error('no etcd servers given');
    this.endpoints = opts.endpoints.map(parseEndpoint);
    const tls = this.endpoints.some((e) => e.tls) ? readTls(opts) : undefined;
    // Keepalive pings find a dead connection (a member killed without FIN) in seconds, not the OS's TCP timeout.
    const keepalive = { keepaliveTimeMs: 30_000, keepaliveTimeoutMs: 10_000 };
    this.#unary = this.endpoints.map((e) => new UnaryChannel(e.target, { ...keepalive, ...(e.tls ? { tls: tls! } : {}) }));
    this.#downUntil = this.endpoints.map(() => 0);
  }

  /** The endpoint calls go to now. */
  get currentEndpoint(): Endpoint {
    return this.endpoints[this.#current]!;
  }

  /** One unary call, moving to the next endpoint when this one is unavailable (and retrying if it is a read). */
  async call<K extends keyof Methods>(name: K, req: ReqOf<K>, deadlineMs?: number): Promise<ResOf<K>> {
    const attempts = IDEMPOTENT.has(name) ? this.#unary.length : 1;
    this.#avoidFailedEndpoint();
    for (let i = 0; ; i++) {
      const at = this.#current;
      try {
        return await this.callOn(at, name, req, deadlineMs);
      } catch (err) {
        if (!isUnavailable(err) || this.#unary.length === 1) throw err;
        this.#markDown(at);
        if (i + 1 >= attempts) throw err;
      }
    }
  }

  /**
   * Moves off the current endpoint when its connection is known to be failing and another's is not, before a call
   * is sent: a write then goes where it can succeed instead of failing on a member already known to be down.
   */
  #avoidFailedEndpoint(): void {
    const n = this.#unary.length;
    if (n === 1) return;
    const now = Date.now();
    const failing = (i: number) => {
      const u = this.#unary[i]!;
      return u.failing || (now < this.#downUntil[i]! && !u.ready);
    };
    if (!failing(this.#current)) return;
    for (let k = 1; k < n; k++) {
      const i = (this.#current + k) % n;
      if (!failing(i)) {
        this.#current = i;
        return;
      }
    }
  }

  /** One unary call to endpoint `index`, no failover (health checks ask each member). */
  callOn<K extends keyof Methods>(index: number, name: K, req: ReqOf<K>, deadlineMs?: number): Promise<ResOf<K>> {
    if (this.#closed) return Promise.reject(new Error('etcd client closed'));
    const m = methods[name];
    let body: Uint8Array;
    try {
      body = (m.serialize as (r: ReqOf<K>) => Uint8Array)(req);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#unary[index]!.call(m.path, body, deadlineMs).then((b) => (m.deserialize as (b: Buffer) => ResOf<K>)(b));
  }

  /** Status of every endpoint (its etcd version and database size), or the error it answered with. */
  statusAll(deadlineMs: number): Promise<(StatusResponse | Error)[]> {
    return Promise.all(this.#unary.map((_, i) => this.callOn(i, 'status', {}, deadlineMs).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
  }

  /** A new watch stream on the current endpoint (moving off one known to be down first). */
  openWatchStream(): BidiStream<WatchRequest, WatchResponse> {
    if (this.#closed) throw new Error('etcd client closed');
    this.#avoidFailedEndpoint();
    const at = this.#current;
    const stream = new BidiStream((h) => this.#unary[at]!.openStream(watchMethod.path, h), watchMethod.serialize, watchMethod.deserialize);
    this.#streamEndpoint.set(stream, at);
    return stream;
  }

  /**
   * A watch stream broke with this error: if it was unavailability, its endpoint counts as down and later streams and
   * calls go elsewhere. Only that endpoint: several resources' streams failing one after another must not rotate the
   * current endpoint back onto the dead member.
   */
  noteStreamFailure(err: unknown, stream?: object): void {
    if (!isUnavailable(err) || this.#unary.length === 1) return;
    this.#markDown(stream ? (this.#streamEndpoint.get(stream) ?? this.#current) : this.#current);
  }

  #markDown(i: number): void {
    this.#downUntil[i] = Date.now() + DOWN_FOR_MS;
    if (this.#current === i) this.#current = (i + 1) % this.#unary.length;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const u of this.#unary) u.close();
  }
}

function readTls(opts: EtcdTlsFiles): SecureContextOptions & { ca?: Buffer; key?: Buffer; cert?: Buffer } {
  const read = (flag: string, path: string | undefined) => {
    if (!path) return null;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${flag}: cannot read ${path}: ${(err as Error).message}`);
    }
  };
  if (!!opts.certFile !== !!opts.keyFile) throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  const ca = read('--etcd-cafile', opts.caFile);
  const key = read('--etcd-keyfile', opts.keyFile);
  const cert = read('--etcd-certfile', opts.certFile);
  return { ...(ca ? { ca } : {}), ...(key ? { key } : {}), ...(cert ? { cert } : {}) };
}
