/**
 * The metrics registry with upstream's stability framework (component-base `metrics`): every metric comes from its
 * catalogue entry (name, type, labels, stability, deprecation), HELP carries `[STABLE] ` / `[BETA] ` / `[ALPHA] `
 * and `(Deprecated since x.y.z) `, deprecated metrics are hidden by the release rules unless shown again with
 * --show-hidden-metrics-for-version, --disabled-metrics hides by name, and the registry counts what it registered,
 * hid and disabled (`registered_metrics_total`, `hidden_metrics_total`, `disabled_metrics_total`).
 */
import { type CatalogueMetric, type MetricsPath, type StabilityLevel, catalogueMetric } from './catalogue.ts';
import { CounterSeries, GaugeSeries, HistogramSeries, MetricVec, SampleSeries, type Series, SummarySeries } from './metric.ts';
import { TimingRatioSeries } from './timing-ratio.ts';
import { NativeHistogramSeries } from './native-histogram.ts';

export interface RegistryOptions {
  /** The binary version deprecation is measured against, e.g. `1.36.0`. */
  version: string;
  /** The endpoint this registry serves (default `/metrics`): it takes only the catalogue's metrics of that path. */
  path?: MetricsPath;
  /** `--show-hidden-metrics-for-version`: only the previous minor (see validateShowHiddenMetricsForVersion). */
  showHiddenMetricsForVersion?: string;
  /** `--disabled-metrics`: names hidden whatever else applies. */
  disabledMetrics?: readonly string[];
  /** `--allow-metric-labels`: metric → label → the values let through. */
  allowMetricLabels?: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
  /** Gate NativeHistograms: every histogram keeps native buckets next to its classic ones. */
  nativeHistograms?: boolean;
}

export type FamilyType = 'counter' | 'gauge' | 'histogram' | 'summary';

/** One registered metric as exposition writes it. */
export interface Family {
  readonly name: string;
  /** With the stability and deprecation prefix. */
  readonly help: string;
  readonly type: FamilyType;
  readonly labelNames: readonly string[];
  readonly constLabels: Readonly<Record<string, string>>;
  readonly vec: MetricVec<Series>;
}

/** How many minor releases a deprecated metric stays visible, by stability (component-base `metrics/opts.go`). */
const SHOWN_RELEASES: Record<StabilityLevel, number> = { STABLE: 3, BETA: 1, ALPHA: 0 };

function minorOf(version: string): { major: number; minor: number } {
  const m = /^v?(\d+)\.(\d+)/.exec(version);
  if (!m) throw new Error(`not a version: ${version}`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/**
 * Whether a metric deprecated in `deprecated` is hidden in `version`: from `deprecated` + N minors on (N = 3 STABLE,
 * 1 BETA, 0 ALPHA), except in that very release when the binary is an `alpha.0` build.
 */
export function isHiddenIn(version: string, deprecated: string, stability: StabilityLevel): boolean {
  const cur = minorOf(version);
  const dep = minorOf(deprecated);
  if (cur.major !== dep.major) return cur.major > dep.major;
  const limit = dep.minor + SHOWN_RELEASES[stability];
  return cur.minor > limit || (cur.minor === limit && !version.includes('alpha.0'));
}

/** The upstream error for a --show-hidden-metrics-for-version other than the previous minor, or undefined. */
export function validateShowHiddenMetricsForVersion(value: string, version: string): string | undefined {
  if (value === '') return undefined;
  const cur = minorOf(version);
  const want = `${cur.major}.${cur.minor - 1}`;
  if (value === want) return undefined;
  return `metrics.showHiddenMetricsForVersion: Invalid value: "${value}": must be omitted or have the value '${want}'; only the previous minor version is allowed`;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/**
 * The upstream error for --disabled-metrics holding a name that is not a metric name (component-base
 * `metrics/api/v1` validation; the value is the whole list as Go's %#v prints a []string), or undefined.
 */
export function validateDisabledMetrics(names: readonly string[]): string | undefined {
  const bad = names.find((n) => !METRIC_NAME.test(n));
  if (bad === undefined) return undefined;
  const list = `[]string{${names.map((n) => JSON.stringify(n)).join(', ')}}`;
  return `metrics.disabledMetrics: Invalid value: ${list}: must be fully qualified metric names matching ${JSON.stringify(METRIC_NAME.source)}, got ${JSON.stringify(bad)}`;
}

export class Registry {
  readonly #o: RegistryOptions;
  readonly #families = new Map<string, Family>();
  readonly #disabled: ReadonlySet<string>;
  readonly #collectHooks: (() => void)[] = [];
  readonly #registered: MetricVec<CounterSeries>;
  readonly #hidden: MetricVec<CounterSeries>;
  readonly #path: MetricsPath;

  constructor(opts: RegistryOptions) {
    this.#o = opts;
    this.#path = opts.path ?? '/metrics';
    this.#disabled = new Set(opts.disabledMetrics ?? []);
    // The meta counters are registered raw, as upstream does (they do not count themselves), and only where the
    // catalogue puts them: /metrics, not the SLI endpoint.
    const meta = this.#path === '/metrics';
    const counter = () => new CounterSeries();
    this.#registered = meta ? this.#add(catalogueMetric('registered_metrics_total'), 'The count of registered metrics broken by stability level and deprecation version.', counter) : new MetricVec({ labelNames: ['deprecated_version', 'stability_level'], enabled: false, newSeries: counter });
    this.#hidden = meta ? this.#add(catalogueMetric('hidden_metrics_total'), 'The count of hidden metrics.', counter) : new MetricVec({ labelNames: [], enabled: false, newSeries: counter });
    if (meta) this.#add(catalogueMetric('disabled_metrics_total'), 'The count of disabled metrics.', counter).with().inc(this.#disabled.size);
  }

  counter(name: string, help: string): MetricVec<CounterSeries> {
    return this.#register(name, help, 'counter', () => new CounterSeries());
  }

  gauge(name: string, help: string): MetricVec<GaugeSeries> {
    return this.#register(name, help, 'gauge', () => new GaugeSeries());
  }

  /**
   * A catalogue `X` metric whose values a collector reads at scrape time (onCollect): counter or gauge samples that
   * may carry the time of their reading.
   */
  collected(name: string, help: string, type: 'counter' | 'gauge'): MetricVec<SampleSeries> {
    return this.#register(name, help, type, () => new SampleSeries());
  }

  /** A catalogue `T` metric: a histogram of a ratio weighted by the nanoseconds it held (see timing-ratio.ts). */
  timingRatioHistogram(name: string, help: string, buckets: readonly number[]): MetricVec<TimingRatioSeries> {
    const bounds = [...buckets].sort((a, b) => a - b);
    return this.#register(name, help, 'histogram', () => new TimingRatioSeries(bounds));
  }

  histogram(name: string, help: string, buckets: readonly number[]): MetricVec<HistogramSeries> {
    const bounds = [...buckets].sort((a, b) => a - b);
    // Decided here, once per metric, so that a histogram without native buckets never tests for them.
    if (this.#o.nativeHistograms) return this.#register(name, help, 'histogram', () => new NativeHistogramSeries(bounds));
    return this.#register(name, help, 'histogram', () => new HistogramSeries(bounds));
  }

  /** A catalogue `S` metric: sum and count only (no objectives, as upstream's summaries are declared). */
  summary(name: string, help: string): MetricVec<SummarySeries> {
    return this.#register(name, help, 'summary', () => new SummarySeries());
  }

  /**
   * A metric outside the catalogue registered as upstream registers its raw Prometheus collectors (process and runtime
   * metrics): HELP as given, no stability prefix, not counted, hidden or disabled by the stability framework.
   */
  raw<S extends Series>(name: string, help: string, type: FamilyType, labelNames: readonly string[], newSeries: () => S): MetricVec<S> {
    if (this.#families.has(name)) throw new Error(`metric ${name} is registered twice`);
    const vec = new MetricVec<S>({ labelNames, enabled: true, newSeries });
    this.#families.set(name, { name, help, type, labelNames, constLabels: {}, vec: vec as MetricVec<Series> });
    return vec;
  }

  /** Runs `fn` before every collection (gauges whose value is read at scrape time). */
  onCollect(fn: () => void): void {
    this.#collectHooks.push(fn);
  }

  /** The registered metrics, sorted by name, after the collect hooks ran. */
  collect(): Family[] {
    for (const fn of this.#collectHooks) fn();
    return [...this.#families.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  #register<S extends Series>(name: string, help: string, type: FamilyType, newSeries: () => S): MetricVec<S> {
    const entry = catalogueMetric(name);
    if (entry.path !== this.#path) throw new Error(`metric ${name} is served on ${entry.path}, not ${this.#path}`);
    const want = entry.type === 'timingRatioHistogram' ? 'histogram' : entry.type;
    // A custom collector (X) exposes whichever type its values have (apiserver_storage_size_bytes: a gauge).
    if (want !== type && want !== 'custom') throw new Error(`metric ${name} is a ${entry.type} in the catalogue, not a ${type}`);
    if (this.#families.has(name)) throw new Error(`metric ${name} is registered twice`);
    const dep = entry.deprecatedVersion;
    const hidden = this.#disabled.has(name) || (dep !== undefined && isHiddenIn(this.#o.version, dep, entry.stability) && !this.#o.showHiddenMetricsForVersion);
    if (hidden) {
      this.#hidden.with().inc();
      return this.#vec(entry, false, newSeries);
    }
    this.#registered.with(dep ?? '', entry.stability).inc();
    return this.#add(entry, help, newSeries, type);
  }

  #add<S extends Series>(entry: CatalogueMetric, help: string, newSeries: () => S, registeredAs?: FamilyType): MetricVec<S> {
    const vec = this.#vec(entry, true, newSeries);
    const dep = entry.deprecatedVersion ? `(Deprecated since ${entry.deprecatedVersion}) ` : '';
    const type: FamilyType = registeredAs ?? (entry.type === 'counter' ? 'counter' : entry.type === 'gauge' ? 'gauge' : entry.type === 'summary' ? 'summary' : 'histogram');
    this.#families.set(entry.name, {
      name: entry.name,
      help: `[${entry.stability}] ${dep}${help}`,
      type,
      labelNames: entry.labels,
      constLabels: entry.constLabels ?? {},
      vec: vec as MetricVec<Series>,
    });
    return vec;
  }

  #vec<S extends Series>(entry: CatalogueMetric, enabled: boolean, newSeries: () => S): MetricVec<S> {
    const allow = this.#o.allowMetricLabels?.get(entry.name);
    return new MetricVec<S>({
      labelNames: entry.labels,
      enabled,
      newSeries,
      ...(allow ? { allowed: entry.labels.map((l) => allow.get(l)) } : {}),
    });
  }
}
