/**
 * The corelet's `/metrics/probes` (kubelet's prober metrics): `prober_probe_total` by result and
 * `prober_probe_duration_seconds`, in a registry of the corelet's own that serves that path only (the agent's route
 * table exposes it as it exposes /metrics).
 */
import { Registry } from '../metrics/registry.ts';
import type { CounterSeries, HistogramSeries, MetricVec } from '../metrics/metric.ts';
import { versionInfo } from '../version.ts';
import type { StaticPod } from './manifest.ts';
import type { ProbeResult } from './probe-result.ts';

/** client_golang's DefBuckets: upstream declares none of its own for the probe duration. */
const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Upstream's result label: a warning is a success, an error (no result) unknown. */
const RESULT_LABEL: Record<ProbeResult, string> = { success: 'successful', warning: 'successful', failure: 'failed', unknown: 'unknown' };

export class ProbeMetrics {
  readonly registry = new Registry({ version: versionInfo.gitVersion, path: '/metrics/probes' });
  readonly #total: MetricVec<CounterSeries>;
  readonly #duration: MetricVec<HistogramSeries>;

  constructor() {
    this.#total = this.registry.counter('prober_probe_total', 'Cumulative number of a liveness, readiness or startup probe for a container by result.');
    this.#duration = this.registry.histogram('prober_probe_duration_seconds', 'Duration in seconds for a probe response.', DEF_BUCKETS);
  }

  /**
   * One probe's result. As upstream, the duration is observed for successful and unknown results, not for
   * failures (a failure's time is mostly its timeout).
   */
  observe(pod: StaticPod, container: string, type: string, result: ProbeResult, seconds: number): void {
    this.#total.with(container, pod.namespace, pod.name, pod.uid, type, RESULT_LABEL[result]).inc();
    if (result !== 'failure') this.#duration.with(container, pod.namespace, pod.name, type).observe(seconds);
  }

  /** A worker that ended takes its series with it, as upstream's does. */
  forget(pod: StaticPod, container: string, type: string): void {
    for (const r of ['successful', 'failed', 'unknown']) this.#total.delete(container, pod.namespace, pod.name, pod.uid, type, r);
    this.#duration.delete(container, pod.namespace, pod.name, type);
  }
}
