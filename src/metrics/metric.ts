/**
 * Metric vectors and their series. A vector is created by the Registry from a catalogue entry; `with(...values)`
 * returns the series for one set of label values, which callers keep so that a hot path updates a number and
 * does no lookup. Written here rather than taken from prom-client: its text output formats numbers the JS way
 * (`1000000`, not Go's `1e+06`), it has no native histograms, and its label lookup runs on every update.
 */

export class CounterSeries {
  value = 0;
  /** When the series came into being, ms since the epoch: the protobuf exposition's created_timestamp. */
  readonly created = Date.now();
  inc(v = 1): void {
    if (v < 0) throw new Error('counter cannot decrease');
    this.value += v;
  }
}

export class GaugeSeries {
  value = 0;
  set(v: number): void {
    this.value = v;
  }
  inc(v = 1): void {
    this.value += v;
  }
  dec(v = 1): void {
    this.value -= v;
  }
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative): counts[i] for (bounds[i-1], bounds[i]]; the last is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  /** As CounterSeries.created. */
  readonly created = Date.now();

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

/**
 * A summary without objectives (component-base's SummaryOpts leave them unset, and client_golang then keeps no
 * quantiles): a sum and a count, so its MaxAge has nothing to age.
 */
export class SummarySeries {
  sum = 0;
  count = 0;
  /** As CounterSeries.created. */
  readonly created = Date.now();

  observe(v: number): void {
    this.sum += v;
    this.count++;
  }
}

/**
 * A value a custom collector reads from its source at scrape time (client_golang's const metrics, as the kubelet's
 * resource collector makes them): a counter or gauge value with the time it was read, and no created timestamp.
 */
export class SampleSeries {
  value = 0;
  /** When the source measured the value, ms since the epoch; the sample carries it when set. */
  timestampMs: number | undefined;
  set(v: number, timestampMs?: number): void {
    this.value = v;
    this.timestampMs = timestampMs;
  }
}

/** NativeHistogramSeries (native-histogram.ts) is a HistogramSeries too, so it needs no entry here. */
export type Series = CounterSeries | GaugeSeries | HistogramSeries | SummarySeries | SampleSeries;

/** What a label value is replaced with when an allow-list does not contain it (upstream's cardinality guard). */
export const UNEXPECTED_LABEL_VALUE = 'unexpected';

export interface VecOptions<S> {
  labelNames: readonly string[];
  /** A hidden or disabled metric: `with` hands out a series nobody collects. */
  enabled: boolean;
  newSeries(): S;
  /** Per label (by position): the values allowed through; others become `unexpected`. */
  allowed?: readonly (ReadonlySet<string> | undefined)[];
}

export class MetricVec<S extends Series> {
  readonly #series = new Map<string, { values: readonly string[]; series: S }>();
  readonly #o: VecOptions<S>;
  #detached: S | undefined;

  constructor(opts: VecOptions<S>) {
    this.#o = opts;
    // A metric without labels has its one series from the start (Go's NewCounter): it is exported as 0.
    if (opts.enabled && opts.labelNames.length === 0) this.with();
  }

  get enabled(): boolean {
    return this.#o.enabled;
  }

  /** The series of these label values, in the catalogue's label order. */
  with(...values: string[]): S {
    const o = this.#o;
    if (values.length !== o.labelNames.length) throw new Error(`expected ${o.labelNames.length} label values (${o.labelNames.join(', ')}), got ${values.length}`);
    if (!o.enabled) return (this.#detached ??= o.newSeries());
    if (o.allowed) values = values.map((v, i) => (o.allowed![i] && !o.allowed![i]!.has(v) ? UNEXPECTED_LABEL_VALUE : v));
    const key = values.join('\u0000');
    let s = this.#series.get(key);
    if (!s) this.#series.set(key, (s = { values, series: o.newSeries() }));
    return s.series;
  }

  /** Forgets one series (Go's DeleteLabelValues), e.g. of an issuer no longer configured; values as for `with`. */
  delete(...values: string[]): void {
    const o = this.#o;
    if (o.allowed) values = values.map((v, i) => (o.allowed![i] && !o.allowed![i]!.has(v) ? UNEXPECTED_LABEL_VALUE : v));
    this.#series.delete(values.join('\u0000'));
  }

  /** Forgets every series (Go's Reset): an info metric that names only the current state. */
  reset(): void {
    this.#series.clear();
    if (this.#o.enabled && this.#o.labelNames.length === 0) this.with();
  }

  /** Every series with its label values. */
  series(): Iterable<{ values: readonly string[]; series: S }> {
    return this.#series.values();
  }
}
