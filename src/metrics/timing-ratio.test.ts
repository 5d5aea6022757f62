import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimingRatioSeries } from './timing-ratio.ts';

test('TimingRatioSeries: each value is weighted by the nanoseconds it held, as a fraction of the denominator', () => {
  let now = 1_000;
  const s = new TimingRatioSeries([0, 0.25, 0.5, 1], () => now);
  s.setDenominator(4);
  s.set(1); // 0.25 from t=1000
  now += 30e6;
  s.set(3); // 0.75 from t=30 ms later
  now += 60e6;
  s.set(0);
  now += 10e6;
  s.flush();
  assert.deepEqual([...s.counts], [10e6, 30e6, 0, 60e6, 0]);
  assert.equal(s.count, 100e6);
  assert.equal(s.sum, 0.25 * 30e6 + 0.75 * 60e6);
});
