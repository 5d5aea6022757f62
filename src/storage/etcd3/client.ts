/**
 * A small etcd v3 client on grpc-js (see proto.ts for why not the `etcd3` package): unary KV, Lease and Maintenance
 * calls, and watch streams. One gRPC channel per endpoint of `--etcd-servers`; calls go to the current endpoint and
 * move on to the next one when it is unavailable. Reads (Range, Status) are retried on the next endpoint, since
 * repeating them is harmless; writes are not: a write whose answer was lost may have been applied, and only the
 * caller can tell whether repeating it is safe (a create would then find its own key).
 */
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { parseEndpoint, type Endpoint } from './endpoint.ts';
import { methods, watchMethod, type StatusResponse, type WatchRequest, type WatchResponse } from './proto.ts';

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

/** A gRPC status error from etcd (code and etcd's own message, e.g. "etcdserver: mvcc: required revision has been compacted"). */
export interface GrpcError extends Error {
  code: number;
  details: string;
}

export function isGrpcError(err: unknown): err is GrpcError {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number';
}

/** The endpoint is down or the connection broke: another endpoint may answer. */
export function isUnavailable(err: unknown): boolean {
  return isGrpcError(err) && err.code === grpc.status.UNAVAILABLE;
}

export const ErrCompacted = 'etcdserver: mvcc: required revision has been compacted';
export const ErrFutureRev = 'etcdserver: mvcc: required revision is a future revision';
export const ErrLeaseNotFound = 'etcdserver: requested lease not found';

type Methods = typeof methods;
type ReqOf<K extends keyof Methods> = Parameters<Methods[K]['serialize']>[0];
type ResOf<K extends keyof Methods> = ReturnType<Methods[K]['deserialize']>;

/** Reads: safe to repeat on another endpoint after UNAVAILABLE. */
const IDEMPOTENT = new Set<keyof Methods>(['range', 'status']);

export class EtcdClient {
  readonly endpoints: readonly Endpoint[];
  readonly #clients: grpc.Client[];
  #current = 0;
  #closed = false;

  constructor(opts: EtcdClientOptions) {
    if (opts.endpoints.length === 0) throw new Error('no etcd servers given');
    this.endpoints = opts.endpoints.map(parseEndpoint);
    const creds = this.endpoints.some((e) => e.tls) ? tlsCredentials(opts) : undefined;
    // Keepalive pings find a dead connection (a member killed without FIN) in seconds, not the OS's TCP timeout.
    const channelOptions = { 'grpc.keepalive_time_ms': 30_000, 'grpc.keepalive_timeout_ms': 10_000, 'grpc.max_receive_message_length': -1 };
    this.#clients = this.endpoints.map((e) => new grpc.Client(e.target, e.tls ? creds! : grpc.credentials.createInsecure(), channelOptions));
  }

  /** The endpoint calls go to now. */
  get currentEndpoint(): Endpoint {
    return this.endpoints[this.#current]!;
  }

  /** One unary call, moving to the next endpoint when this one is unavailable (and retrying if it is a read). */
  async call<K extends keyof Methods>(name: K, req: ReqOf<K>, deadlineMs?: number): Promise<ResOf<K>> {
    const attempts = IDEMPOTENT.has(name) ? this.#clients.length : 1;
    this.#avoidFailedEndpoint();
    for (let i = 0; ; i++) {
      const at = this.#current;
      try {
        return await this.callOn(at, name, req, deadlineMs);
      } catch (err) {
        if (!isUnavailable(err) || this.#clients.length === 1) throw err;
        if (this.#current === at) this.#current = (at + 1) % this.#clients.length;
        if (i + 1 >= attempts) throw err;
      }
    }
  }

  /**
   * Moves off the current endpoint when its connection is known to be failing and another's is not, before a call
   * is sent: a write then goes where it can succeed instead of failing on a member already known to be down.
   */
  #avoidFailedEndpoint(): void {
    const n = this.#clients.length;
    if (n === 1) return;
    const failing = (i: number) => this.#clients[i]!.getChannel().getConnectivityState(false) === grpc.connectivityState.TRANSIENT_FAILURE;
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
    const client = this.#clients[index]!;
    const options: grpc.CallOptions = deadlineMs ? { deadline: Date.now() + deadlineMs } : {};
    return new Promise<ResOf<K>>((resolve, reject) => {
      client.makeUnaryRequest(
        m.path,
        m.serialize as (r: ReqOf<K>) => Buffer,
        m.deserialize as (b: Buffer) => ResOf<K>,
        req,
        new grpc.Metadata(),
        options,
        (err, res) => (err ? reject(err) : resolve(res!)),
      );
    });
  }

  /** Status of every endpoint (its etcd version and database size), or the error it answered with. */
  statusAll(deadlineMs: number): Promise<(StatusResponse | Error)[]> {
    return Promise.all(this.#clients.map((_, i) => this.callOn(i, 'status', {}, deadlineMs).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
  }

  /** A new watch stream on the current endpoint. */
  openWatchStream(): grpc.ClientDuplexStream<WatchRequest, WatchResponse> {
    if (this.#closed) throw new Error('etcd client closed');
    return this.#clients[this.#current]!.makeBidiStreamRequest(watchMethod.path, watchMethod.serialize, watchMethod.deserialize, new grpc.Metadata(), {});
  }

  /** A watch stream broke with this error: point later streams and calls at the next endpoint if it was unavailability. */
  noteStreamFailure(err: unknown): void {
    if (isUnavailable(err) && this.#clients.length > 1) this.#current = (this.#current + 1) % this.#clients.length;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const c of this.#clients) c.close();
  }
}

function tlsCredentials(opts: EtcdTlsFiles): grpc.ChannelCredentials {
  const read = (flag: string, path: string | undefined) => {
    if (!path) return null;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${flag}: cannot read ${path}: ${(err as Error).message}`);
    }
  };
  if (!!opts.certFile !== !!opts.keyFile) throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  return grpc.credentials.createSsl(read('--etcd-cafile', opts.caFile), read('--etcd-keyfile', opts.keyFile), read('--etcd-certfile', opts.certFile));
}
