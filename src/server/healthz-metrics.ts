/**
 * The health-check SLIs served on `/metrics/slis` (upstream `component-base/metrics/prometheus/slis`, gate
 * ComponentSLIs, GA and locked on): the last result of each check by endpoint, and a count of results. They live in
 * a registry of their own because a scraper polls this endpoint often and should not pull every other metric.
 */
import { GaugeSeries } from '../metrics/metric.ts';
import { processStartSeconds } from '../metrics/process.ts';
import { Registry } from '../metrics/registry.ts';
import type { HealthEndpoint } from './healthz.ts';

export interface HealthcheckSLIs {
  registry: Registry;
  /** HealthChecksOptions.observe: one check of a root probe ran. */
  observe(name: string, endpoint: HealthEndpoint, success: boolean): void;
}

export function healthcheckSLIs(version: string): HealthcheckSLIs {
  const registry = new Registry({ version, path: '/metrics/slis' });
  const last = registry.gauge('cluster_healthcheck', 'This metric records the result of a single healthcheck.');
  const total = registry.counter('cluster_healthchecks_total', 'This metric records the results of all healthcheck.');
  // Upstream's SLI registry also carries the process start time, an ALPHA metric outside the catalogue's tables.
  registry.raw('process_start_time_seconds', '[ALPHA] Start time of the process since unix epoch in seconds.', 'gauge', [], () => new GaugeSeries()).with().set(processStartSeconds());
  return {
    registry,
    observe(name, endpoint, success) {
      last.with(name, endpoint).set(success ? 1 : 0);
      total.with(name, success ? 'success' : 'error', endpoint).inc();
    },
  };
}
