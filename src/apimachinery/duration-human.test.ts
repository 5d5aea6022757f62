import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration } from './duration-human.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

test('humanDuration matches Kubernetes duration.HumanDuration', () => {
  const cases: [number, string][] = [
    [-2 * S, '<invalid>'],
    [-1500, '0s'],
    [-1 * S, '0s'],
    [0, '0s'],
    [999, '0s'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [5 * M + 30 * S, '5m30s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [3 * H + 2 * M, '3h2m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [48 * H, '2d'],
    [4 * D, '4d'],
    [4 * D + 5 * H, '4d5h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [731 * D, '2y1d'],
    [8 * 365 * D, '8y'],
    [9 * 365 * D + 100 * D, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms} ms`);
});
