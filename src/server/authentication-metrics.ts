/**
 * The authentication filter's metrics (upstream `endpoints/filters/metrics.go`) and the client certificate's
 * remaining lifetime (upstream's x509 authenticator): `authentication_attempts{result}`,
 * `authentication_duration_seconds{result}`, `authenticated_user_requests{username}` and
 * `apiserver_client_certificate_expiration_seconds`, registered from the catalogue like every other metric.
 */
import { createHash } from 'node:crypto';
import type { TokenCacheRecorder } from '../auth/authenticator/token-cache.ts';
import type { IssuerAuthenticatorOptions } from '../auth/authenticator/jwt/issuer-authenticator.ts';
import type { CounterSeries, GaugeSeries, HistogramSeries } from '../metrics/metric.ts';
import type { Registry } from '../metrics/registry.ts';
import type { AuthenticationRecorder } from './filters/filter-latency.ts';

/** ExponentialBuckets(0.001, 2, 15). */
const DURATION_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);
/** 0, 30m, 1h, 2h, 6h, 12h, 1d, 2d, 4d, 1w, 30d, 90d, 180d, 360d. */
const EXPIRATION_BUCKETS = [0, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 345600, 604800, 2592000, 7776000, 15552000, 31104000];

type Result = 'success' | 'failure' | 'error';

export class AuthenticationMetrics implements AuthenticationRecorder {
  readonly #attempts: Record<Result, CounterSeries>;
  readonly #duration: Record<Result, HistogramSeries>;
  readonly #byUser = new Map<string, CounterSeries>();
  readonly #users;
  readonly #expiration: HistogramSeries;

  constructor(registry: Registry) {
    const attempts = registry.counter('authentication_attempts', 'Counter of authenticated attempts.');
    const duration = registry.histogram('authentication_duration_seconds', 'Authentication duration in seconds broken out by result.', DURATION_BUCKETS);
    this.#attempts = { success: attempts.with('success'), failure: attempts.with('failure'), error: attempts.with('error') };
    this.#duration = { success: duration.with('success'), failure: duration.with('failure'), error: duration.with('error') };
    this.#users = registry.counter('authenticated_user_requests', 'Counter of authenticated requests broken out by username.');
    this.#expiration = registry
      .histogram('apiserver_client_certificate_expiration_seconds', 'Distribution of the remaining lifetime on the certificate used to authenticate a request.', EXPIRATION_BUCKETS)
      .with();
  }

  authenticated(result: Result, seconds: number, username: string | undefined): void {
    this.#attempts[result].inc();
    this.#duration[result].observe(seconds);
    if (result !== 'success' || username === undefined) return;
    const label = compressUsername(username);
    let series = this.#byUser.get(label);
    if (!series) this.#byUser.set(label, (series = this.#users.with(label)));
    series.inc();
  }

  /** For the x509 authenticator: the seconds a presented certificate has left. */
  readonly certificateExpiration = (seconds: number): void => {
    this.#expiration.observe(seconds);
  };
}

/**
 * Upstream's compressUsername: a few well-known identities by name, anything with an `@` as `email_id`, everyone
 * else as `other`, so the label's values stay bounded whoever authenticates. Our spelling of kube-system's default
 * service account (core-system) is kept by name too.
 */
export function compressUsername(username: string): string {
  switch (username) {
    case 'admin':
    case 'client':
    case 'kube_proxy':
    case 'kubelet':
    case 'system:serviceaccount:kube-system:default':
    case 'system:serviceaccount:core-system:default':
      return username;
    default:
      return username.includes('@') ? 'email_id' : 'other';
  }
}

/** prometheus.DefBuckets: upstream's token cache histogram sets no buckets of its own. */
const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The token cache's metrics (upstream `authentication/token/cache/stats.go`), fed by CachedTokenAuthenticator:
 * `authentication_token_cache_request_total` / `_request_duration_seconds{status=hit|miss}`,
 * `_fetch_total{status=ok|error}`, `_active_fetch_count{status=in_flight|blocked}`.
 */
export class TokenCacheMetrics implements TokenCacheRecorder {
  readonly #hit: CounterSeries;
  readonly #miss: CounterSeries;
  readonly #hitSeconds: HistogramSeries;
  readonly #missSeconds: HistogramSeries;
  readonly #ok: CounterSeries;
  readonly #error: CounterSeries;
  readonly #inFlight: GaugeSeries;
  readonly #blocked: GaugeSeries;

  constructor(registry: Registry) {
    // Upstream gives these no help text: their HELP is the stability prefix alone.
    const requests = registry.counter('authentication_token_cache_request_total', '');
    const duration = registry.histogram('authentication_token_cache_request_duration_seconds', '', DEFAULT_BUCKETS);
    const fetches = registry.counter('authentication_token_cache_fetch_total', '');
    const active = registry.gauge('authentication_token_cache_active_fetch_count', '');
    this.#hit = requests.with('hit');
    this.#miss = requests.with('miss');
    this.#hitSeconds = duration.with('hit');
    this.#missSeconds = duration.with('miss');
    this.#ok = fetches.with('ok');
    this.#error = fetches.with('error');
    this.#inFlight = active.with('in_flight');
    this.#blocked = active.with('blocked');
  }

  request(hit: boolean, seconds: number): void {
    (hit ? this.#hit : this.#miss).inc();
    (hit ? this.#hitSeconds : this.#missSeconds).observe(seconds);
  }

  blocked(delta: 1 | -1): void {
    this.#blocked.inc(delta);
  }

  fetchStarted(): void {
    this.#inFlight.inc();
  }

  fetchDone(ok: boolean): void {
    (ok ? this.#ok : this.#error).inc();
    this.#inFlight.dec();
  }
}

/**
 * The JWT authenticators' metrics (upstream `plugin/pkg/authenticator/token/oidc/metrics.go`), shared by
 * `--authentication-config` and the legacy `--oidc-*` flags, which build the same authenticator:
 *
 * - `apiserver_authentication_jwt_authenticator_latency_seconds{jwt_issuer_hash,result}`: every token an issuer
 *   answered for (not the tokens of other issuers), on a token cache miss;
 * - `apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds{apiserver_id_hash,jwt_issuer_hash,result}`:
 *   when the issuer's key set was last fetched, per outcome;
 * - `apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info{jwt_issuer_hash,apiserver_id_hash,hash}`:
 *   value 1 with the SHA-256 of the last key set fetched successfully (the raw body, as upstream hashes it), one
 *   series per issuer, produced at scrape time as upstream's custom collector does.
 *
 * The two JWKS metrics are recorded only with the StructuredAuthenticationConfigurationJWKSMetrics gate on (beta, on by
 * default since 1.35). Hashes are `sha256:<hex>` (empty input, empty label, as upstream's getHash).
 */

export const hashLabel = (s: string) => (s === '' ? '' : `sha256:${createHash('sha256').update(s).digest('hex')}`);

/** jwt latency buckets: upstream's default buckets with a 1 ms start. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class JWTMetrics {
  /** The hooks to give the issuer authenticators (IssuerAuthenticatorOptions). */
  readonly hooks: Pick<IssuerAuthenticatorOptions, 'onResult' | 'onJWKSFetch'>;
  readonly #apiserverIDHash: string;
  readonly #timestamps;
  /** issuer hash → key set hash of the last successful fetch. */
  readonly #keySets = new Map<string, string>();

  constructor(registry: Registry, apiserverID: string, opts: { jwksMetrics: boolean }) {
    this.#apiserverIDHash = hashLabel(apiserverID);
    const latency = registry.histogram('apiserver_authentication_jwt_authenticator_latency_seconds', 'Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).', LATENCY_BUCKETS);
    this.#timestamps = registry.gauge('apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds', 'Timestamp of the last successful or failed JWKS fetch split by result, api server identity and jwt issuer for the JWT authenticator.');
    const info = registry.gauge('apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info', 'Information about the last JWKS fetched by the JWT authenticator with hash as label, split by api server identity and jwt issuer.');
    registry.onCollect(() => {
      info.reset();
      for (const [issuer, keySet] of this.#keySets) info.with(issuer, this.#apiserverIDHash, keySet).set(1);
    });
    this.hooks = {
      onResult: (issuerURL, result, seconds) => latency.with(hashLabel(issuerURL), result).observe(seconds),
      ...(opts.jwksMetrics ? { onJWKSFetch: (issuerURL: string, result: 'success' | 'failure', keySet?: string) => this.#jwksFetched(issuerURL, result, keySet) } : {}),
    };
  }

  #jwksFetched(issuerURL: string, result: 'success' | 'failure', keySet: string | undefined): void {
    const issuer = hashLabel(issuerURL);
    if (result === 'success') this.#keySets.set(issuer, hashLabel(keySet ?? ''));
    this.#timestamps.with(this.#apiserverIDHash, issuer, result).set(Date.now() / 1000);
  }

  /** Drops an issuer's JWKS series (upstream DeleteJWKSFetchMetrics): it left the configuration. */
  forgetIssuer(issuerURL: string): void {
    const issuer = hashLabel(issuerURL);
    this.#keySets.delete(issuer);
    this.#timestamps.delete(this.#apiserverIDHash, issuer, 'success');
    this.#timestamps.delete(this.#apiserverIDHash, issuer, 'failure');
  }
}
