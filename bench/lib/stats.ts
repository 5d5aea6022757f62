/**
 * Statistics for the benchmark: percentiles of latency samples, min/median/max over repeated runs, and the
 * issue-4 goal rule (median pair ratio meets the target, worst pair within 20 % of it).
 */

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const rank = Math.ceil(q * n);
  return sorted[Math.min(n - 1, Math.max(0, rank - 1))]!;
}

/** min / median / max of repeated measurements (median of an even count is the mean of the middle two). */
export interface Spread {
  min: number;
  median: number;
  max: number;
  n: number;
}

export function spread(values: readonly number[]): Spread {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return { min: NaN, median: NaN, max: NaN, n: 0 };
  const mid = v.length >> 1;
  const median = v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
  return { min: v[0]!, median, max: v[v.length - 1]!, n: v.length };
}

/** Growable Float64Array: latency samples reach millions per run, too many for a plain number[]. */
export class Samples {
  #buf: Float64Array;
  #n = 0;
  constructor(capacity = 1 << 16) {
    this.#buf = new Float64Array(capacity);
  }
  push(v: number): void {
    if (this.#n === this.#buf.length) {
      const next = new Float64Array(this.#buf.length * 2);
      next.set(this.#buf);
      this.#buf = next;
    }
    this.#buf[this.#n++] = v;
  }
  get length(): number {
    return this.#n;
  }
  /** p50/p99/max (and mean) of the samples, in the unit they were pushed in. */
  summary(): LatencySummary {
    const s = this.#buf.slice(0, this.#n).sort();
    let sum = 0;
    for (let i = 0; i < s.length; i++) sum += s[i]!;
    return { n: s.length, p50: percentile(s, 0.5), p90: percentile(s, 0.9), p99: percentile(s, 0.99), max: s.length ? s[s.length - 1]! : NaN, mean: s.length ? sum / s.length : NaN };
  }
}

export interface LatencySummary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** A goal: `ratio` (ours/baseline, or an absolute figure) must be ≥ or ≤ `target`. */
export interface GoalSpec {
  id: string;
  text: string;
  direction: 'atLeast' | 'atMost';
  target: number;
}

export interface GoalResult extends GoalSpec {
  /** Pair ratios (or per-run values) the verdict was taken from; empty when the figure could not be measured. */
  values: number[];
  median: number;
  worst: number;
  met: boolean;
  /** How far the median is from the target, signed so that a positive gap means "short by". */
  gap: string;
  note?: string;
}

/**
 * Issue 4's rule: the median of the pair ratios meets the target and the worst pair is within 20 % of it.
 * Extra conditions (e.g. "no watcher dropped") are folded in through `extraOk`.
 */
export function judge(spec: GoalSpec, values: readonly number[], extra?: { ok: boolean; why: string }): GoalResult {
  const s = spread(values);
  const atLeast = spec.direction === 'atLeast';
  const worst = atLeast ? s.min : s.max;
  const medianOk = atLeast ? s.median >= spec.target : s.median <= spec.target;
  const worstOk = atLeast ? worst >= spec.target * 0.8 : worst <= spec.target * 1.2;
  const measured = s.n > 0;
  const met = measured && medianOk && worstOk && (extra?.ok ?? true);
  let gap: string;
  if (!measured) gap = 'not measured';
  else if (met) gap = '—';
  else {
    const parts: string[] = [];
    if (!medianOk) parts.push(`median ${fmt(s.median)} vs ${atLeast ? '≥' : '≤'} ${fmt(spec.target)} (${atLeast ? fmt(spec.target / s.median) + '× short' : fmt(s.median / spec.target) + '× over'})`);
    if (medianOk && !worstOk) parts.push(`worst ${fmt(worst)} beyond 20 % of target`);
    if (extra && !extra.ok) parts.push(extra.why);
    gap = parts.join('; ');
  }
  return { ...spec, values: [...values], median: s.median, worst, met, gap, ...(extra && !extra.ok ? { note: extra.why } : {}) };
}

/** Compact number formatting for tables: 3 significant digits, thousands separated. */
export function fmt(x: number, digits = 3): string {
  if (x === undefined || x === null || Number.isNaN(x)) return '–';
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a === 0) return '0';
  return Number(x.toPrecision(digits)).toString();
}

/** `min / median / max` of a Spread with a unit. */
export function fmtSpread(s: Spread, unit = ''): string {
  if (s.n === 0) return '–';
  const u = unit ? ' ' + unit : '';
  return `${fmt(s.min)} / **${fmt(s.median)}** / ${fmt(s.max)}${u}`;
}
