/**
 * A small REST client for one API server (client-go's rest.Client, the parts node agents and controllers need):
 * JSON requests over one keep-alive HTTPS agent with the kubeconfig's credentials, and client-go's handling of
 * `Retry-After`: a 429 or 5xx answer that carries it is retried after that many seconds, at most 10 times.
 * Transport failures are thrown; every HTTP answer is returned, so callers decide what a status means.
 */
import { Agent, request } from 'node:https';
import { loadKubeconfig, type ClientConfig } from './kubeconfig.ts';

type Obj = Record<string, any>;

export interface RestResponse {
  status: number;
  body: Obj;
}

export interface RestClientOptions {
  /** Sent as User-Agent; the server names the field manager after the part before the first `/`. */
  userAgent?: string;
  /** Per attempt. */
  timeoutMs?: number;
  /** client-go's default rest.Client maxRetries for Retry-After answers. */
  maxRetries?: number;
}

/** An answer that is not a success, as a thrown error (client-go's StatusError). */
export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly status: Obj,
  ) {
    super(typeof status.message === 'string' && status.message ? status.message : `the server answered ${code}`);
  }

  get reason(): string {
    return typeof this.status.reason === 'string' ? this.status.reason : '';
  }
}

export class RestClient {
  readonly #agent: Agent;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(
    readonly config: ClientConfig,
    opts: RestClientOptions = {},
  ) {
    this.#agent = new Agent({ keepAlive: true, ...(config.ca ? { ca: config.ca } : {}), ...(config.cert ? { cert: config.cert, key: config.key } : {}) });
    this.#maxRetries = opts.maxRetries ?? 10;
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#userAgent = opts.userAgent ?? 'core-client';
  }

  static fromKubeconfig(path: string, opts: RestClientOptions = {}): RestClient {
    return new RestClient(loadKubeconfig(path), opts);
  }

  /** One request, retried only where the server asked for it with Retry-After. */
  async request(method: string, path: string, body?: unknown, contentType = 'application/json', signal?: AbortSignal): Promise<RestResponse> {
    for (let retries = 0; ; retries++) {
      const r = await this.#once(method, path, body, contentType, signal);
      const wait = r.status === 429 || r.status >= 500 ? Number(r.retryAfter) : NaN;
      if (!Number.isInteger(wait) || wait < 0 || retries >= this.#maxRetries) return { status: r.status, body: r.body };
      await sleep(wait * 1000, signal);
    }
  }

  /** Like request, but a non-2xx answer is thrown as a StatusError. */
  async do(method: string, path: string, body?: unknown, contentType = 'application/json', signal?: AbortSignal): Promise<Obj> {
    const r = await this.request(method, path, body, contentType, signal);
    if (r.status < 200 || r.status > 299) throw new StatusError(r.status, r.body);
    return r.body;
  }

  /** Closes the idle keep-alive connections. */
  close(): void {
    this.#agent.destroy();
  }

  #once(method: string, path: string, body: unknown, contentType: string, signal?: AbortSignal): Promise<RestResponse & { retryAfter?: string }> {
    return new Promise((resolveReq, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        new URL(path, this.config.server),
        {
          method,
          agent: this.#agent,
          headers: {
            Accept: 'application/json',
            'User-Agent': this.#userAgent,
            ...(data !== undefined ? { 'Content-Type': contentType } : {}),
            ...(this.config.token ? { Authorization: `Bearer ${this.config.token}` } : {}),
          },
          timeout: this.#timeoutMs,
          ...(signal ? { signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('error', reject);
          res.on('end', () => {
            let parsed: Obj = {};
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
            } catch {
              // Not JSON (a proxy's error page): the status code says enough.
            }
            const ra = res.headers['retry-after'];
            resolveReq({ status: res.statusCode ?? 0, body: parsed, ...(typeof ra === 'string' ? { retryAfter: ra } : {}) });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: request timed out`)));
      req.on('error', reject);
      req.end(data);
    });
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
