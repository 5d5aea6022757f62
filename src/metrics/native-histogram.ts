/**
 * Native (sparse, exponential) histograms as client_golang keeps them next to the classic buckets, with the settings
 * component-base uses under the NativeHistograms gate (reference §8.3): bucket factor 1.1 (schema 3), at most 160
 * populated buckets, zero threshold 2^-128, no reset interval and no zero-bucket widening, so a histogram that
 * outgrows 160 buckets halves its resolution (schema − 1, down to −4).
 *
 * Bucket i of schema s holds (2^((i−1)·2^−s), 2^(i·2^−s)]; negative observations go to the mirrored negative
 * buckets; |v| ≤ zero threshold to the zero bucket. Only the protobuf exposition carries them.
 */
import { HistogramSeries } from './metric.ts';

export const NATIVE_BUCKET_FACTOR = 1.1;
export const NATIVE_MAX_BUCKETS = 160;
/** client_golang's DefNativeHistogramZeroThreshold, 2^-128. */
export const NATIVE_ZERO_THRESHOLD = 2 ** -128;
const MIN_SCHEMA = -4;
const MAX_SCHEMA = 8;

/**
 * Where each bucket of a positive schema starts within one power of two, as fractions in [0.5, 1). These are
 * client_golang's table values rather than Math.pow results: a few differ from pow's in the last bit, and an
 * observation exactly on a boundary must land in the bucket Go would put it in. Schemas above 3 are never used
 * (factor 1.1 starts at 3 and only goes down).
 */
const BOUNDS: readonly (readonly number[])[] = [
  [0.5],
  [0.5, 0.7071067811865475],
  [0.5, 0.5946035575013605, 0.7071067811865475, 0.8408964152537144],
  [0.5, 0.5452538663326288, 0.5946035575013605, 0.6484197773255048, 0.7071067811865475, 0.7711054127039704, 0.8408964152537144, 0.9170040432046711],
];

/** The coarsest schema whose bucket width ratio is at most `factor` (client_golang pickSchema). */
export function pickSchema(factor: number): number {
  if (!(factor > 1)) throw new Error(`bucket factor ${factor} is <= 1`);
  const floor = Math.floor(Math.log2(Math.log2(factor)));
  if (floor <= -MAX_SCHEMA) return MAX_SCHEMA;
  if (floor >= -MIN_SCHEMA) return MIN_SCHEMA;
  return 0 - floor; // not -floor: no -0
}

// frexp through the float's bits: Math.log2 is not exact enough to find the power of two of every double.
const scratch = new Float64Array(1);
const words = new Uint32Array(scratch.buffer);
const HI = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 1 : 0;
let frexpExp = 0;

/** The fraction in [0.5, 1) of a finite a > 0; its exponent is left in frexpExp (a = frac · 2^exp). */
function frexp(a: number): number {
  scratch[0] = a;
  let hi = words[HI]!;
  let e = (hi >>> 20) & 0x7ff;
  let shift = 0;
  if (e === 0) {
    // Subnormal: scale into the normal range first.
    scratch[0] = a * 2 ** 64;
    hi = words[HI]!;
    e = (hi >>> 20) & 0x7ff;
    shift = 64;
  }
  frexpExp = e - 1022 - shift;
  words[HI] = (hi & 0x800fffff) | (1022 << 20);
  return scratch[0]!;
}

/**
 * The bucket index of |v| (v ≠ 0, not NaN) in `schema`: ceil(log2|v| · 2^schema), computed from the float's
 * fraction and exponent as client_golang does so that powers of two and table boundaries fall the same way.
 * ±Inf gets the index after the one of ±MaxFloat64.
 */
export function nativeBucketIndex(v: number, schema: number): number {
  let a = Math.abs(v);
  const inf = a === Infinity;
  if (inf) a = Number.MAX_VALUE;
  const frac = frexp(a);
  const exp = frexpExp;
  let key: number;
  if (schema > 0) {
    const bounds = BOUNDS[schema]!;
    let i = 0;
    while (i < bounds.length && bounds[i]! < frac) i++;
    key = i + (exp - 1) * bounds.length;
  } else {
    key = frac === 0.5 ? exp - 1 : exp;
    key = (key + (1 << -schema) - 1) >> -schema;
  }
  return inf ? key + 1 : key;
}

export interface BucketSpan {
  offset: number;
  length: number;
}

/**
 * Spans and deltas of populated buckets (index → count), as client_golang's makeBuckets lays them out: the first
 * span's offset is the first index, later offsets the gap since the previous span's end; gaps of one or two buckets
 * are filled with empty buckets instead of starting a span; deltas are the first count, then differences.
 */
export function spansAndDeltas(buckets: ReadonlyMap<number, number>): { spans: BucketSpan[]; deltas: number[] } {
  const spans: BucketSpan[] = [];
  const deltas: number[] = [];
  const keys = [...buckets.keys()].sort((a, b) => a - b);
  let prev = 0;
  let next = 0;
  const append = (count: number) => {
    spans[spans.length - 1]!.length++;
    deltas.push(count - prev);
    prev = count;
  };
  keys.forEach((k, n) => {
    const gap = k - next;
    if (n === 0 || gap > 2) spans.push({ offset: gap, length: 0 });
    else for (let j = 0; j < gap; j++) append(0);
    append(buckets.get(k)!);
    next = k + 1;
  });
  return { spans, deltas };
}

export interface NativeHistogramOptions {
  factor?: number;
  maxBuckets?: number;
  zeroThreshold?: number;
}

/**
 * A histogram that records classic and native buckets. A subclass rather than a flag in HistogramSeries so that with
 * the gate off the classic observe stays exactly what it was (no branch, and call sites see one class only).
 */
export class NativeHistogramSeries extends HistogramSeries {
  schema: number;
  readonly zeroThreshold: number;
  readonly maxBuckets: number;
  zeroCount = 0;
  positive = new Map<number, number>();
  negative = new Map<number, number>();

  constructor(bounds: readonly number[], opts: NativeHistogramOptions = {}) {
    super(bounds);
    this.schema = pickSchema(opts.factor ?? NATIVE_BUCKET_FACTOR);
    this.zeroThreshold = opts.zeroThreshold ?? NATIVE_ZERO_THRESHOLD;
    this.maxBuckets = opts.maxBuckets ?? NATIVE_MAX_BUCKETS;
  }

  override observe(v: number): void {
    super.observe(v);
    if (v !== v) return; // NaN has no native bucket (it still counts, as in client_golang).
    const t = this.zeroThreshold;
    if (v > t) add(this.positive, nativeBucketIndex(v, this.schema), 1);
    else if (v < -t) add(this.negative, nativeBucketIndex(v, this.schema), 1);
    else {
      this.zeroCount++;
      return;
    }
    // One halving per observation past the limit, as client_golang does; sparse data may need several.
    if (this.positive.size + this.negative.size > this.maxBuckets) this.#halveResolution();
  }

  #halveResolution(): void {
    if (this.schema === MIN_SCHEMA) return;
    this.schema--;
    this.positive = merged(this.positive);
    this.negative = merged(this.negative);
  }
}

function add(m: Map<number, number>, key: number, n: number): void {
  m.set(key, (m.get(key) ?? 0) + n);
}

/** Buckets i of schema s as buckets of schema s − 1: two neighbours (2j − 1, 2j) become j = ceil(i / 2). */
function merged(m: Map<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [k, n] of m) add(out, Math.ceil(k / 2) || 0, n); // || 0: no -0 keys
  return out;
}
