/**
 * The authentication filter's metrics (upstream `endpoints/filters/metrics.go`) and the client certificate's
 * remaining lifetime (upstream's x509 authenticator): `authentication_attempts{result}`,
 * `authentication_duration_seconds{result}`, `authenticated_user_requests{username}` and
 * `apiserver_client_certificate_expiration_seconds`, registered from the catalogue like every other metric.
 */
import type { CounterSeries, HistogramSeries } from '../metrics/metric.ts';
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
