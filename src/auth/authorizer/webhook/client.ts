/**
 * The HTTP side of a webhook (upstream's GenericWebhook over a client-go REST client): a JSON POST to the
 * kubeconfig's URL with its TLS settings, each attempt bounded by the configured timeout, retried with upstream's
 * backoff (500 ms × 1.5, jitter 0.2, 5 attempts) only where client-go's DefaultShouldRetry retries: a reset
 * connection, a 500 or 504, a 429, or any answer carrying Retry-After. Other failures — refused connection,
 * timeout, another status, a body that is not JSON — fail at once.
 */
import { Agent, request } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { WebhookConnection } from './kubeconfig.ts';

/** Why a call failed, as upstream's metrics name it: `timeout`, `canceled` (the request went away) or `error`. */
export type FailureKind = 'timeout' | 'canceled' | 'error';

export class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    /** The HTTP status when the webhook answered. */
    readonly status?: number,
    /** Whether client-go would try again. */
    readonly retriable = false,
  ) {
    super(message);
  }
}

export interface Backoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly jitter: number;
  readonly steps: number;
}

/** apiserver's DefaultRetryBackoffWithInitialDelay(500ms). */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** One attempt's outcome, for metrics: the result label and how long it took. */
export type AttemptObserver = (result: 'success' | FailureKind, seconds: number) => void;

const MAX_ANSWER_BYTES = 3 * 1024 * 1024;

export class WebhookClient {
  readonly #conn: WebhookConnection;
  readonly #agent: Agent | undefined;
  readonly #timeoutMs: number;
  readonly #backoff: Backoff;

  readonly #userAgent: string;

  /** `userAgent`: who calls (the node agent calls the API server with these clients too). */
  constructor(conn: WebhookConnection, timeoutMs: number, backoff: Backoff = DEFAULT_BACKOFF, userAgent = 'core-apiserver') {
    this.#userAgent = userAgent;
    this.#conn = conn;
    this.#timeoutMs = timeoutMs;
    this.#backoff = backoff;
    this.#agent =
      conn.url.protocol === 'https:'
        ? new Agent({
            keepAlive: true,
            ...(conn.ca !== undefined ? { ca: conn.ca } : {}),
            ...(conn.cert !== undefined ? { cert: conn.cert, key: conn.key } : {}),
            ...(conn.servername !== undefined ? { servername: conn.servername } : {}),
            rejectUnauthorized: !conn.insecureSkipTLSVerify,
          })
        : undefined;
  }

  /**
   * POSTs `body` and returns the 2xx answer as `decode` reads its JSON (a decode error fails the attempt, as a body
   * the REST client cannot decode does), retrying as described above; throws WebhookCallError.
   */
  async post<T>(body: string, decode: (answer: unknown) => T, observe: AttemptObserver, signal?: AbortSignal): Promise<T> {
    let delay = this.#backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        const json = await this.#once(body, signal);
        let answer: T;
        try {
          answer = decode(json);
        } catch (e) {
          throw new WebhookCallError((e as Error).message, 'error');
        }
        observe('success', (performance.now() - started) / 1000);
        return answer;
      } catch (e) {
        const err = e instanceof WebhookCallError ? e : new WebhookCallError(String(e), 'error');
        observe(err.kind, (performance.now() - started) / 1000);
        if (!err.retriable || attempt >= this.#backoff.steps || signal?.aborted) throw err;
      }
      const jittered = delay * (1 + Math.random() * this.#backoff.jitter);
      await new Promise((r) => setTimeout(r, jittered).unref());
      delay *= this.#backoff.factor;
    }
  }

  close(): void {
    this.#agent?.destroy();
  }

  #once(body: string, signal: AbortSignal | undefined): Promise<unknown> {
    const url = this.#conn.url;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, */*',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': this.#userAgent,
    };
    if (this.#conn.token !== undefined) headers.authorization = `Bearer ${this.#conn.token}`;
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const fail = (err: WebhookCallError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        req.destroy();
        reject(err);
      };
      const onAbort = () => fail(new WebhookCallError(`Post "${url.href}": context canceled`, 'canceled'));
      const options = { method: 'POST', headers, ...(this.#agent ? { agent: this.#agent } : {}) };
      const req = (url.protocol === 'https:' ? request : httpRequest)(url, options, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) fail(new WebhookCallError(`webhook answer from ${url.href} is larger than ${MAX_ANSWER_BYTES} bytes`, 'error', res.statusCode));
          else chunks.push(c);
        });
        res.on('error', (e) => fail(new WebhookCallError(`Post "${url.href}": ${e.message}`, 'error', res.statusCode, isReset(e))));
        res.on('end', () => {
          if (settled) return;
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          if (status < 200 || status > 299) {
            const retriable = status === 500 || status === 504 || status === 429 || res.headers['retry-after'] !== undefined;
            const kind: FailureKind = status === 504 ? 'timeout' : 'error';
            return fail(new WebhookCallError(statusMessage(status, text), kind, status, retriable));
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch (e) {
            return fail(new WebhookCallError(`malformed webhook answer (status ${status}): ${(e as Error).message}`, 'error', status));
          }
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(parsed);
        });
      });
      const timer = setTimeout(() => fail(new WebhookCallError(`Post "${url.href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, 'timeout')), this.#timeoutMs);
      timer.unref();
      if (signal) {
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      req.on('error', (e) => fail(new WebhookCallError(`Post "${url.href}": ${e.message}`, 'error', undefined, isReset(e))));
      req.end(body);
    });
  }
}

function isReset(e: Error): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** client-go's words for a refused answer, shortened: the status and the start of what the webhook said. */
function statusMessage(status: number, text: string): string {
  const said = text.length > 256 ? `${text.slice(0, 256)}…` : text;
  switch (status) {
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return `webhook answered 403 Forbidden: ${said}`;
    case 429:
      return `the server has received too many requests and has asked us to try again later (status 429): ${said}`;
    case 504:
      return `the server was unable to return a response in the time allotted, but may still be processing the request (status 504): ${said}`;
    default:
      return `an error on the server (${JSON.stringify(said)}) has prevented the request from succeeding (status ${status})`;
  }
}
