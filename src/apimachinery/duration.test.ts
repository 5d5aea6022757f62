import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatGoDuration, formatGoDurationNanos, parseGoDuration, parseGoDurationNanos } from './duration.ts';

describe('parseGoDuration (Go time.ParseDuration)', () => {
  const ok: [string, bigint][] = [
    ['0', 0n],
    ['-0', 0n],
    ['+0', 0n],
    ['0s', 0n],
    ['5s', 5_000_000_000n],
    ['30s', 30_000_000_000n],
    ['1478s', 1_478_000_000_000n],
    ['-5s', -5_000_000_000n],
    ['+5s', 5_000_000_000n],
    ['-0s', 0n],
    ['5.0s', 5_000_000_000n],
    ['5.6s', 5_600_000_000n],
    ['5.s', 5_000_000_000n],
    ['.5s', 500_000_000n],
    ['1.0s', 1_000_000_000n],
    ['1.00s', 1_000_000_000n],
    ['1.004s', 1_004_000_000n],
    ['100.00100s', 100_001_000_000n],
    ['10ns', 10n],
    ['11us', 11_000n],
    ['12\u00b5s', 12_000n],
    ['12\u03bcs', 12_000n],
    ['13ms', 13_000_000n],
    ['14s', 14_000_000_000n],
    ['15m', 900_000_000_000n],
    ['16h', 57_600_000_000_000n],
    ['3h30m', 12_600_000_000_000n],
    ['10.5s4m', 250_500_000_000n],
    ['-2m3.4s', -123_400_000_000n],
    ['1h2m3s4ms5us6ns', 3_723_004_005_006n],
    ['39h9m14.425s', 140_954_425_000_000n],
    ['52763797000ns', 52_763_797_000n],
    ['0.3333333333333333333h', 1_200_000_000_000n],
    ['9007199254740993ns', 9_007_199_254_740_993n],
    ['9223372036854775807ns', 9_223_372_036_854_775_807n],
    ['9223372036854775.807us', 9_223_372_036_854_775_807n],
    ['9223372036s854ms775us807ns', 9_223_372_036_854_775_807n],
    ['-9223372036854775808ns', -9_223_372_036_854_775_808n],
    ['-9223372036854775.808us', -9_223_372_036_854_775_808n],
    ['0.100000000000000000000h', 360_000_000_000n],
    ['0.830103483285477580700h', 2_988_372_539_827n],
  ];
  for (const [s, ns] of ok) it(JSON.stringify(s), () => assert.equal(parseGoDurationNanos(s), ns));

  const bad: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['3', 'time: missing unit in duration "3"'],
    ['-', 'time: invalid duration "-"'],
    ['s', 'time: invalid duration "s"'],
    ['.', 'time: invalid duration "."'],
    ['-.', 'time: invalid duration "-."'],
    ['.s', 'time: invalid duration ".s"'],
    ['+.s', 'time: invalid duration "+.s"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['1.1.1s', 'time: missing unit in duration "1.1.1s"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['9223372036854775.808us', 'time: invalid duration "9223372036854775.808us"'],
    ['9223372036854ms775us808ns', 'time: invalid duration "9223372036854ms775us808ns"'],
    ['-9223372036854775809ns', 'time: invalid duration "-9223372036854775809ns"'],
    ['1\u00b5', 'time: unknown unit "\\xc2\\xb5" in duration "1\\xc2\\xb5"'],
    ['x"y', 'time: invalid duration "x\\"y"'],
  ];
  for (const [s, msg] of bad) it(`${JSON.stringify(s)} fails`, () => assert.throws(() => parseGoDuration(s), { message: msg }));

  it('returns milliseconds', () => {
    assert.equal(parseGoDuration('1h'), 3_600_000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('300ms'), 300);
    assert.equal(parseGoDuration('2.5s'), 2500);
    assert.equal(parseGoDuration('1500us'), 1.5);
    assert.equal(parseGoDuration('-1m'), -60_000);
  });
});

describe('formatGoDuration (Go Duration.String)', () => {
  const nanos: [bigint, string][] = [
    [0n, '0s'],
    [1n, '1ns'],
    [1_100n, '1.1\u00b5s'],
    [2_200_000n, '2.2ms'],
    [3_300_000_000n, '3.3s'],
    [-4_400_000n, '-4.4ms'],
    [60_000_000_000n, '1m0s'],
    [4_000_000_000n * 60n + 5_000_000_000n, '4m5s'],
    [4n * 60_000_000_000n + 5_001_000_000n, '4m5.001s'],
    [5n * 3_600_000_000_000n + 6n * 60_000_000_000n + 7_001_000_000n, '5h6m7.001s'],
    [8n * 60_000_000_000n + 1n, '8m0.000000001s'],
    [2n ** 63n - 1n, '2562047h47m16.854775807s'],
    [-(2n ** 63n), '-2562047h47m16.854775808s'],
  ];
  for (const [ns, want] of nanos) it(`${ns}ns`, () => assert.equal(formatGoDurationNanos(ns), want));

  const ms: [number, string][] = [
    [0, '0s'],
    [300, '300ms'],
    [1500, '1.5s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
    [5_400_000, '1h30m0s'],
    [1_800_000 * 2, '1h0m0s'],
    [0.001, '1\u00b5s'],
    [-2500, '-2.5s'],
  ];
  for (const [v, want] of ms) it(`${v}ms`, () => assert.equal(formatGoDuration(v), want));

  it('parse and format round-trip', () => {
    for (const s of ['1h0m0s', '1h30m0s', '5m0s', '1.5s', '300ms', '0s', '1.5\u00b5s', '7ns', '-3m2.5s']) {
      assert.equal(formatGoDurationNanos(parseGoDurationNanos(s)), s);
    }
  });
});
