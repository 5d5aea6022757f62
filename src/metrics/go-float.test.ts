import assert from 'node:assert/strict';
import { it } from 'node:test';
import { goFloat } from './go-float.ts';

it('formats numbers as Go strconv.FormatFloat(v, \'g\', -1, 64)', () => {
  const cases: [number, string][] = [
    [0, '0'], [-0, '-0'], [1, '1'], [-2.5, '-2.5'], [0.005, '0.005'], [0.0001, '0.0001'], [0.00001, '1e-05'],
    [100000, '100000'], [1e6, '1e+06'], [1e7, '1e+07'], [1e9, '1e+09'], [123456789, '1.23456789e+08'], [1.5e-7, '1.5e-07'],
    [2.938735877055719e-39, '2.938735877055719e-39'], [1e21, '1e+21'], [1e100, '1e+100'], [0.1, '0.1'], [1 / 3, '0.3333333333333333'],
    [Infinity, '+Inf'], [-Infinity, '-Inf'], [NaN, 'NaN'], [999999, '999999'], [1234567.5, '1.2345675e+06'],
  ];
  for (const [v, want] of cases) assert.equal(goFloat(v), want, String(v));
});
