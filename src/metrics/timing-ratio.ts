/**
 * A timing-ratio histogram series (component-base `TimingRatioHistogram`): a value that holds between changes
 * (numerator ÷ denominator) is observed once per nanosecond it held, so the buckets, `_count` and `_sum` are
 * weighted by time in ns. Changes cost a clock read and one bucket update; the time up to now is added at scrape.
 */
import { HistogramSeries } from './metric.ts';

// Whole nanoseconds: the weights are counts (uint64 in the protobuf exposition).
const nowNs = () => Math.round(performance.now() * 1e6);

export class TimingRatioSeries extends HistogramSeries {
  #numerator = 0;
  #denominator = 1;
  readonly #now: () => number;
  #since: number;

  constructor(bounds: readonly number[], now: () => number = nowNs) {
    super(bounds);
    this.#now = now;
    this.#since = now();
  }

  /** The limit the value is a fraction of (upstream SetDenominator). */
  setDenominator(d: number): void {
    this.flush();
    this.#denominator = d;
  }

  set(numerator: number): void {
    this.flush();
    this.#numerator = numerator;
  }

  /** Adds the time since the last change at the current ratio (called before every collection). */
  flush(): void {
    const t = this.#now();
    const w = t - this.#since;
    this.#since = t;
    if (w <= 0) return;
    const v = this.#numerator / this.#denominator;
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]! += w;
    this.sum += v * w;
    this.count += w;
  }
}
