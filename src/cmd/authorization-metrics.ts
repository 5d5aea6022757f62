/**
 * The authorization metrics of the catalogue, registered where their sources are (upstream
 * `apiserver/pkg/authorization/metrics`, `authorization/cel/metrics.go`, `plugin/pkg/authorizer/webhook/metrics`,
 * `server/options/authorizationconfig/metrics`):
 *
 * - `apiserver_authorization_decisions_total{decision,name,type}`: every Allow (`allowed`) or Deny (`denied`) of a
 *   configured authorizer; NoOpinion is not terminal and not counted; the system:masters shortcut is not counted.
 * - `apiserver_authorization_webhook_evaluations_total`, `_duration_seconds`, `_evaluations_fail_open_total`
 *   `{name,result}` per round trip to a webhook.
 * - `apiserver_authorization_match_condition_evaluation_seconds`, `_exclusions_total`, `_evaluation_errors_total`
 *   `{name,type}` per evaluation of a webhook's match conditions.
 * - `apiserver_authorization_config_controller_*` for reloads of `--authorization-config`.
 * - `authorization_attempts_total`, `authorization_duration_seconds{result}`: the authorization filter's
 *   decisions (upstream's recordAuthorizationMetrics), recorded around the authorizer the filter asks.
 */
import type { Attributes, AuthorizationResult, Authorizer } from '../auth/authorizer/interface.ts';
import type { WebhookRecorder } from '../auth/authorizer/webhook/webhook.ts';
import type { CounterSeries } from '../metrics/metric.ts';
import type { Registry } from '../metrics/registry.ts';
import { sha256Label } from './authentication-config.ts';

/** client_golang's DefBuckets. */
const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const MATCH_CONDITION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25];
/** ExponentialBuckets(0.001, 2, 15). */
const FILTER_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);
type FilterResult = 'allowed' | 'denied' | 'no-opinion' | 'error';

export class AuthorizationMetrics {
  readonly #registry: Registry;
  readonly #decisions;
  readonly #evaluations;
  readonly #duration;
  readonly #failOpen;
  readonly #mcSeconds;
  readonly #mcExclusions;
  readonly #mcErrors;
  #reload: { reloads: ReturnType<Registry['counter']>; last: ReturnType<Registry['gauge']>; info: ReturnType<Registry['gauge']> } | undefined;

  constructor(registry: Registry) {
    this.#registry = registry;
    this.#decisions = registry.counter('apiserver_authorization_decisions_total', 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.');
    this.#evaluations = registry.counter('apiserver_authorization_webhook_evaluations_total', 'Round-trips to authorization webhooks.');
    this.#duration = registry.histogram('apiserver_authorization_webhook_duration_seconds', 'Request latency in seconds.', DEF_BUCKETS);
    this.#failOpen = registry.counter('apiserver_authorization_webhook_evaluations_fail_open_total', 'NoOpinion results due to webhook timeout or error.');
    this.#mcSeconds = registry.histogram('apiserver_authorization_match_condition_evaluation_seconds', 'Authorization match condition evaluation time in seconds, split by authorizer type and name.', MATCH_CONDITION_BUCKETS);
    this.#mcExclusions = registry.counter('apiserver_authorization_match_condition_exclusions_total', 'Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.');
    this.#mcErrors = registry.counter('apiserver_authorization_match_condition_evaluation_errors_total', 'Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.');
  }

  /** The two series of one authorizer's terminal decisions, looked up once per authorizer rather than per request. */
  decisions(type: string, name: string): { allowed: CounterSeries; denied: CounterSeries } {
    return { allowed: this.#decisions.with('allowed', name, type), denied: this.#decisions.with('denied', name, type) };
  }

  webhook(name: string): WebhookRecorder {
    return {
      evaluation: (result, seconds) => {
        this.#evaluations.with(name, result).inc();
        this.#duration.with(name, result).observe(seconds);
      },
      failOpen: (result) => this.#failOpen.with(name, result).inc(),
      matchConditions: (seconds, outcome) => {
        this.#mcSeconds.with(name, 'Webhook').observe(seconds);
        if (outcome === 'excluded') this.#mcExclusions.with(name, 'Webhook').inc();
        else if (outcome === 'error') this.#mcErrors.with(name, 'Webhook').inc();
      },
    };
  }

  /**
   * The authorizer the authorization filter asks, counting every answer in `authorization_attempts_total` and
   * timing it in `authorization_duration_seconds`. A decision carrying an error is `error` unless it allows, as
   * upstream labels it. Only the filter's authorizer is wrapped: escalation checks are not requests.
   */
  filter(inner: Authorizer): Authorizer {
    const attempts = this.#registry.counter('authorization_attempts_total', "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.");
    const duration = this.#registry.histogram('authorization_duration_seconds', 'Authorization duration in seconds broken out by result.', FILTER_BUCKETS);
    const series = Object.fromEntries((['allowed', 'denied', 'no-opinion', 'error'] as const).map((r) => [r, { count: attempts.with(r), seconds: duration.with(r) }])) as Record<
      FilterResult,
      { count: CounterSeries; seconds: ReturnType<typeof duration.with> }
    >;
    const record = (r: AuthorizationResult, started: number): AuthorizationResult => {
      const label: FilterResult = r.decision === 'Allow' ? 'allowed' : r.error ? 'error' : r.decision === 'Deny' ? 'denied' : 'no-opinion';
      series[label].count.inc();
      series[label].seconds.observe((performance.now() - started) / 1000);
      return r;
    };
    return {
      authorize(a: Attributes) {
        const started = performance.now();
        const r = inner.authorize(a);
        return r instanceof Promise ? r.then((x) => record(x, started)) : record(r, started);
      },
    };
  }

  /**
   * Reload metrics, registered only with `--authorization-config` as upstream registers them when it starts the
   * reload loop. `record` counts an attempt; `configInfo` names the configuration in force by its hash.
   */
  reloads(apiserverID: string): { record(status: 'success' | 'failure'): void; configInfo(data: string): void } {
    this.#reload ??= {
      reloads: this.#registry.counter('apiserver_authorization_config_controller_automatic_reloads_total', 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.'),
      last: this.#registry.gauge('apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds', 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.'),
      info: this.#registry.gauge('apiserver_authorization_config_controller_last_config_info', 'Information about the last applied authorization configuration with hash as label, split by apiserver identity.'),
    };
    const r = this.#reload;
    const id = sha256Label(apiserverID);
    return {
      record: (status) => {
        r.reloads.with(id, status).inc();
        r.last.with(id, status).set(Date.now() / 1000);
      },
      configInfo: (data) => {
        r.info.reset();
        r.info.with(id, sha256Label(data)).set(1);
      },
    };
  }
}
