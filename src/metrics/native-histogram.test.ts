import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NATIVE_ZERO_THRESHOLD, NativeHistogramSeries, nativeBucketIndex, pickSchema, spansAndDeltas } from './native-histogram.ts';

/** The bucket index of the middle of bucket i (well away from either boundary). */
const mid = (i: number, schema: number) => 2 ** ((i - 0.5) / 2 ** schema);

describe('native histogram buckets', () => {
  it('factor 1.1 is schema 3; the defaults are component-base\'s', () => {
    assert.equal(pickSchema(1.1), 3);
    assert.equal(pickSchema(2), 0);
    assert.equal(pickSchema(1.0001), 8);
    assert.equal(pickSchema(1e300), -4);
    assert.throws(() => pickSchema(1));
    const h = new NativeHistogramSeries([1]);
    assert.equal(h.schema, 3);
    assert.equal(h.zeroThreshold, 2.938735877055719e-39);
    assert.equal(h.maxBuckets, 160);
  });

  it('index i holds (2^((i−1)/2^s), 2^(i/2^s)]: the reference example and the boundaries', () => {
    assert.equal(nativeBucketIndex(0.1, 3), -26);
    assert.ok(2 ** (-27 / 8) < 0.1 && 0.1 <= 2 ** (-26 / 8), '(0.0964, 0.1051]');
    // A power of two is the upper bound of its bucket, in every schema.
    for (const s of [3, 2, 1, 0, -1, -2, -4]) {
      for (const k of [-20, -3, -1, 0, 1, 2, 5, 16]) assert.equal(nativeBucketIndex(2 ** k, s), Math.ceil(k * 2 ** s) + 0, `2^${k} schema ${s}`);
    }
    // Just above a power of two is the next bucket.
    assert.equal(nativeBucketIndex(1 + Number.EPSILON, 3), 1);
    assert.equal(nativeBucketIndex(1 + Number.EPSILON, -2), 1);
    // Everything else: ceil(log2 v · 2^s).
    for (const v of [0.005, 0.3, 0.999, 1.5, 3, 7.25, 60, 1234.5, 1e9]) {
      for (const s of [3, 1, 0, -3]) assert.equal(nativeBucketIndex(v, s), Math.ceil(Math.log2(v) * 2 ** s) + 0, `${v} schema ${s}`);
    }
    // The sign does not matter (negative buckets mirror the positive ones).
    assert.equal(nativeBucketIndex(-0.1, 3), -26);
  });

  it('subnormals, the largest double and infinities', () => {
    assert.equal(nativeBucketIndex(5e-324, 3), -1074 * 8);
    assert.equal(nativeBucketIndex(3 * 2 ** -1070, 0), -1068);
    assert.equal(nativeBucketIndex(Number.MAX_VALUE, 3), 1024 * 8);
    assert.equal(nativeBucketIndex(Infinity, 3), 1024 * 8 + 1);
    assert.equal(nativeBucketIndex(-Infinity, 3), 1024 * 8 + 1);
  });

  it('spans and deltas: gaps of one or two buckets are filled, longer gaps start a span', () => {
    assert.deepEqual(spansAndDeltas(new Map()), { spans: [], deltas: [] });
    assert.deepEqual(spansAndDeltas(new Map([[-26, 2]])), { spans: [{ offset: -26, length: 1 }], deltas: [2] });
    // -3 and -2 adjacent; gap of 1 before 0; gap of 2 before 3; gap of 3 before 7; then 20.
    const m = new Map([[7, 1], [-3, 5], [0, 2], [-2, 1], [3, 4], [20, 4]]);
    assert.deepEqual(spansAndDeltas(m), {
      spans: [{ offset: -3, length: 7 }, { offset: 3, length: 1 }, { offset: 12, length: 1 }],
      // counts -3..3: 5 1 0 2 0 0 4, then 1 at 7, then 4 at 20
      deltas: [5, -4, -1, 2, -2, 0, 4, -3, 3],
    });
  });

  it('observations go to positive, negative or zero buckets; NaN counts but has no bucket', () => {
    const h = new NativeHistogramSeries([0.1, 1]);
    for (const v of [0.1, 0.1, 0.5, -1, 0, NATIVE_ZERO_THRESHOLD, -NATIVE_ZERO_THRESHOLD, 2 * NATIVE_ZERO_THRESHOLD, NaN]) h.observe(v);
    assert.deepEqual([...h.positive].sort((a, b) => a[0] - b[0]), [[-1016, 1], [-26, 2], [-8, 1]]);
    assert.deepEqual([...h.negative], [[0, 1]]);
    assert.equal(h.zeroCount, 3);
    assert.equal(h.count, 9);
    assert.equal(h.counts[1], 1, 'the classic buckets are kept as well');
  });

  it('more than 160 buckets halves the resolution: schema 3 → 2, neighbouring buckets merged', () => {
    const h = new NativeHistogramSeries([1]);
    for (let i = 0; i < 160; i++) h.observe(mid(i, 3));
    assert.equal(h.schema, 3, '160 buckets are allowed');
    assert.equal(h.positive.size, 160);
    h.observe(-mid(5, 3));
    assert.equal(h.schema, 2, 'the 161st bucket (negative ones count too) halves');
    // Buckets 2j − 1 and 2j of schema 3 are bucket j of schema 2.
    assert.equal(h.positive.size, 81);
    assert.deepEqual([...h.negative], [[3, 1]]);
    for (let j = 0; j <= 80; j++) assert.equal(h.positive.get(j), j === 0 || j === 80 ? 1 : 2, `bucket ${j}`);
    assert.equal(h.count, 161);
    // New observations use the new schema.
    h.observe(mid(26, 3));
    assert.equal(h.positive.get(13), 3);
  });

  it('sparse buckets may need several halvings: one per observation over the limit, never below schema −4', () => {
    const h = new NativeHistogramSeries([1], { maxBuckets: 4 });
    for (const i of [0, 8, 16, 24]) h.observe(mid(i, 3));
    h.observe(mid(32, 3));
    assert.equal(h.schema, 2);
    assert.equal(h.positive.size, 5, 'still over the limit');
    h.observe(mid(0, 3));
    assert.equal(h.schema, 1);
    h.observe(mid(0, 3));
    h.observe(mid(0, 3));
    assert.equal(h.schema, -1);
    assert.equal(h.positive.size, 3);
    assert.equal([...h.positive.values()].reduce((a, b) => a + b), 8);
    const tiny = new NativeHistogramSeries([1], { maxBuckets: 1 });
    for (let k = -300; k <= 300; k += 50) tiny.observe(2 ** k);
    assert.equal(tiny.schema, -4);
    assert.ok(tiny.positive.size > 1, 'at the lowest resolution the limit is exceeded rather than data dropped');
  });
});
