import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimingRatioSeries } from './timing-ratio.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('TimingRatioSeries: each value is weighted by the nanoseconds it held, as a fraction of the denominator', async () => {
  const s = new TimingRatioSeries([0, 0.25, 0.5, 1]);
  s.setDenominator(4);
  s.flush();
  const start = s.count;
  s.set(1); // 0.25
  await sleep(30);
  s.set(3); // 0.75
  await sleep(60);
  s.set(0);
  const held = s.count - start;
  assert.ok(held >= 85e6 && held < 400e6, `about 90 ms in ns: ${held}`);
  // 0.25 for ~30 ms, 0.75 for ~60 ms: the 0.75 bucket holds about twice the 0.25 one.
  const quarter = s.counts[1]!;
  const threeQuarters = s.counts[3]!;
  assert.ok(threeQuarters > quarter * 1.3, `${threeQuarters} vs ${quarter}`);
  assert.ok(Math.abs(s.sum - (0.25 * quarter + 0.75 * threeQuarters)) < 1e-3 * s.sum);
});
