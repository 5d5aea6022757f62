/**
 * Upstream's token cache (`authentication/token/cache`), which kube-apiserver puts in front of the whole token union
 * (token file, JWT issuers, …): a successful answer is reused for a while (10 s, kube-apiserver's
 * `TokenSuccessCacheTTL`), refusals and errors are not kept (its `TokenFailureCacheTTL` is 0), and the requests that
 * miss on the same token while it is being authenticated share one authentication (upstream's singleflight), so a
 * burst of requests with a new token costs one JWKS check, not one per request.
 *
 * Keys are a SHA-256 of a secret drawn at start followed by the token: the cache holds no credential, its keys cannot
 * be precomputed, and a client cannot aim collisions at the map, which is what upstream's HMAC-SHA256 is for. A
 * secret-prefix hash is enough here because no key ever leaves the process (length extension needs a hash to
 * extend), and Node's one-shot hash costs a third of an HMAC object per request.
 *
 * The catalogue's `authentication_token_cache_*` metrics are recorded as upstream's stats collector does:
 * `request_total` / `request_duration_seconds{status=hit|miss}` per lookup (duration in whole milliseconds, as
 * upstream truncates it), `fetch_total{status=ok|error}` per shared authentication (ok: the inner authenticators
 * answered without an error, whether or not they knew the token), and `active_fetch_count{status=in_flight}` (shared
 * authentications running) and `{status=blocked}` (lookups that missed and wait for one, the fetching one included).
 */
import { hash, randomBytes } from 'node:crypto';
import type { AuthenticationResult } from './interface.ts';
import type { TokenAuthenticator } from './token.ts';
import type { Answer } from './union.ts';

export const SUCCESS_TTL_MS = 10_000;
/** Upstream's bound on one shared authentication: its waiters get an error after it. */
export const SHARED_LOOKUP_TIMEOUT_MS = 30_000;
/**
 * Upstream's cache is unbounded but only keeps successes for the TTL; this bound (its 32 stripes of its comment's
 * "32k entries") only matters if that many distinct valid tokens are used within one TTL. Oldest out first.
 */
const MAX_ENTRIES = 32 * 1024;

/** What the cache reports; TokenCacheMetrics (server/authentication-metrics.ts) records it in the catalogue's metrics. */
export interface TokenCacheRecorder {
  /** One lookup finished: served from the cache or not, after how many seconds. */
  request(hit: boolean, seconds: number): void;
  /** A lookup that missed starts (+1) or stops (-1) waiting for a shared authentication. */
  blocked(delta: 1 | -1): void;
  fetchStarted(): void;
  /** A shared authentication finished; `ok` when it gave no error. */
  fetchDone(ok: boolean): void;
}

export interface CachedTokenAuthenticatorOptions {
  /** How long a success is reused; upstream's 10 s. */
  readonly successTTLMs?: number;
  /**
   * How long a refusal (or an error) is reused; kube-apiserver's 0 keeps none. kubelet's webhook token authenticator
   * uses its cache TTL for both sides (`--authentication-token-webhook-cache-ttl`).
   */
  readonly failureTTLMs?: number;
  readonly now?: () => number;
  readonly metrics?: TokenCacheRecorder | undefined;
}

interface Entry {
  readonly result: AuthenticationResult;
  readonly expires: number;
}

/** Upstream's seconds: whole milliseconds elapsed, divided by 1000. */
const elapsedSeconds = (started: number) => Math.floor(performance.now() - started) / 1000;

export class CachedTokenAuthenticator implements TokenAuthenticator {
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<AuthenticationResult>>();
  /** The secret in front of every token hashed into a key (fixed length, so key and token cannot run together). */
  readonly #secret = `${randomBytes(32).toString('base64')}|`;
  readonly #ttl: number;
  readonly #failureTTL: number;
  readonly #now: () => number;
  readonly #metrics: TokenCacheRecorder | undefined;

  constructor(
    private readonly inner: TokenAuthenticator,
    opts: CachedTokenAuthenticatorOptions = {},
  ) {
    this.#ttl = opts.successTTLMs ?? SUCCESS_TTL_MS;
    this.#failureTTL = opts.failureTTLMs ?? 0;
    this.#now = opts.now ?? Date.now;
    this.#metrics = opts.metrics;
  }

  /**
   * The cached answer when there is one (synchronously: a hit costs no promise hop); otherwise the inner
   * authenticators' answer, shared with every concurrent lookup of the same token. An inner authenticator that
   * answers from memory (the token file) is answered synchronously on a miss too.
   */
  authenticateToken(token: string): Answer {
    const m = this.#metrics;
    const started = m ? performance.now() : 0;
    const key = this.#key(token);
    const hit = this.#lookup(key);
    if (hit) {
      m?.request(true, elapsedSeconds(started));
      return hit;
    }
    m?.blocked(1);
    const answer = this.#inflight.get(key) ?? this.#fetch(key, token);
    if (!(answer instanceof Promise)) {
      this.#missDone(started);
      return answer;
    }
    return answer.then((r) => {
      this.#missDone(started);
      return r;
    });
  }

  #missDone(started: number): void {
    const m = this.#metrics;
    if (!m) return;
    m.blocked(-1);
    m.request(false, elapsedSeconds(started));
  }

  #lookup(key: string): AuthenticationResult | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expires > this.#now()) return e.result;
    this.#entries.delete(key);
    return undefined;
  }

  /** One authentication of `token`, registered for sharing while it runs. */
  #fetch(key: string, token: string): Answer {
    this.#metrics?.fetchStarted();
    let r: Answer;
    try {
      r = this.inner.authenticateToken(token);
    } catch (e) {
      r = crashed(e);
    }
    if (!(r instanceof Promise)) return this.#settle(key, r);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<AuthenticationResult>((resolve) => {
      timer = setTimeout(() => resolve({ user: null, error: new Error('context deadline exceeded') }), SHARED_LOOKUP_TIMEOUT_MS);
      timer.unref();
    });
    const shared = Promise.race([r.catch(crashed), timeout]).then((result) => {
      clearTimeout(timer);
      this.#inflight.delete(key);
      return this.#settle(key, result);
    });
    this.#inflight.set(key, shared);
    return shared;
  }

  #settle(key: string, result: AuthenticationResult): AuthenticationResult {
    this.#metrics?.fetchDone(!result.error);
    // With kube-apiserver's failure TTL of 0 only successes are kept: a refused token is asked again next time.
    const ttl = result.user ? this.#ttl : this.#failureTTL;
    if (ttl > 0) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(key, { result, expires: this.#now() + ttl });
    }
    return result;
  }

  /** The cache key of `token` (upstream also hashes the request's API audiences, which this server does not have). */
  #key(token: string): string {
    return hash('sha256', this.#secret + token, 'base64');
  }
}

/** An authenticator that threw: refused, as upstream turns a panic in the shared lookup into an error. */
function crashed(e: unknown): AuthenticationResult {
  return { user: null, error: e instanceof Error ? e : new Error(String(e)) };
}
