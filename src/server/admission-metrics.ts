/**
 * The admission chain's metrics (upstream `apiserver/pkg/admission/metrics`): per named plugin call
 * `apiserver_admission_controller_admission_duration_seconds{name,operation,rejected,type}`, and per request and
 * step the named chain's `apiserver_admission_step_admission_duration_seconds{operation,rejected,type}` with its
 * `_summary` twin. Label values are upstream's: operation `CREATE`/`UPDATE`/`DELETE`/`CONNECT`, rejected
 * `true`/`false`, type `admit`/`validate`, name the plugin's registered name.
 */
import type { AdmissionObserver, StepType } from '../admission/chain.ts';
import type { Operation } from '../admission/interfaces.ts';
import type { HistogramSeries, MetricVec, SummarySeries } from '../metrics/metric.ts';
import type { Registry } from '../metrics/registry.ts';

const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
/** The slot of one (type, operation, rejected) combination: 16 per metric, looked up without building strings. */
const slot = (type: StepType, op: Operation, rejected: boolean) => (type === 'admit' ? 0 : 8) + OPERATIONS.indexOf(op) * 2 + (rejected ? 1 : 0);

export class AdmissionMetrics implements AdmissionObserver {
  readonly #controller: MetricVec<HistogramSeries>;
  readonly #step: MetricVec<HistogramSeries>;
  readonly #stepSummary: MetricVec<SummarySeries>;
  /** Series by slot, created on first use (a series appears on /metrics once something was observed in it). */
  readonly #stepSeries: ({ h: HistogramSeries; s: SummarySeries } | undefined)[] = new Array(16);
  readonly #controllerSeries = new Map<string, (HistogramSeries | undefined)[]>();

  constructor(registry: Registry) {
    this.#controller = registry.histogram(
      'apiserver_admission_controller_admission_duration_seconds',
      'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
      BUCKETS,
    );
    this.#step = registry.histogram(
      'apiserver_admission_step_admission_duration_seconds',
      'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
      BUCKETS,
    );
    this.#stepSummary = registry.summary(
      'apiserver_admission_step_admission_duration_seconds_summary',
      'Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).',
    );
  }

  step(type: StepType, operation: Operation, rejected: boolean, seconds: number): void {
    const i = slot(type, operation, rejected);
    let s = this.#stepSeries[i];
    if (!s) {
      const r = String(rejected);
      s = this.#stepSeries[i] = { h: this.#step.with(operation, r, type), s: this.#stepSummary.with(operation, r, type) };
    }
    s.h.observe(seconds);
    s.s.observe(seconds);
  }

  controller(name: string, type: StepType, operation: Operation, rejected: boolean, seconds: number): void {
    let slots = this.#controllerSeries.get(name);
    if (!slots) this.#controllerSeries.set(name, (slots = new Array(16)));
    const i = slot(type, operation, rejected);
    (slots[i] ??= this.#controller.with(name, operation, String(rejected), type)).observe(seconds);
  }
}
