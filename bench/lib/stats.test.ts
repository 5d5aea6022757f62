import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fmt, judge, percentile, Samples, spread } from './stats.ts';
import { eventBody } from './event.ts';

test('percentile is nearest-rank', () => {
  const xs = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(xs, 0.5), 50);
  assert.equal(percentile(xs, 0.99), 99);
  assert.equal(percentile(xs, 1), 100);
  assert.ok(Number.isNaN(percentile([], 0.5)));
});

test('spread gives min, median (mean of the middle two when even) and max, ignoring NaN', () => {
  assert.deepEqual(spread([3, 1, 2]), { min: 1, median: 2, max: 3, n: 3 });
  assert.deepEqual(spread([4, 1, 2, 3, NaN]), { min: 1, median: 2.5, max: 4, n: 4 });
});

test('Samples grows past its capacity and summarizes', () => {
  const s = new Samples(2);
  for (let i = 1; i <= 1000; i++) s.push(1001 - i);
  const sum = s.summary();
  assert.equal(sum.n, 1000);
  assert.equal(sum.p50, 500);
  assert.equal(sum.p99, 990);
  assert.equal(sum.max, 1000);
});

test('judge: median meets the target and the worst pair is within 20 % of it', () => {
  const atLeast = { id: 'X', text: 'x', direction: 'atLeast' as const, target: 0.5 };
  assert.equal(judge(atLeast, [0.6, 0.55, 0.41]).met, true);
  const worstTooLow = judge(atLeast, [0.6, 0.55, 0.39]);
  assert.equal(worstTooLow.met, false);
  assert.match(worstTooLow.gap, /worst 0.39/);
  const short = judge(atLeast, [0.25, 0.25, 0.25]);
  assert.equal(short.met, false);
  assert.match(short.gap, /2× short/);
  const atMost = { id: 'Y', text: 'y', direction: 'atMost' as const, target: 2 };
  assert.equal(judge(atMost, [1.9, 2.4, 1]).met, true);
  assert.equal(judge(atMost, [1.9, 2.5, 1]).met, false);
  assert.equal(judge(atMost, [1], { ok: false, why: 'dropped' }).met, false);
  assert.equal(judge(atMost, []).gap, 'not measured');
});

test('fmt keeps three significant digits and separates thousands', () => {
  assert.equal(fmt(12345.6), '12,346');
  assert.equal(fmt(0.012345), '0.0123');
  assert.equal(fmt(NaN), '–');
});

test('event bodies are ~700 B JSON with the selectors the scenarios rely on', () => {
  const b = eventBody({ namespace: 'bulk', nsMod: 50, namePrefix: 'e-', seqMarker: true }, 1230);
  assert.equal(Buffer.byteLength(b), 700);
  const ev = JSON.parse(b) as { metadata: { name: string; namespace: string }; regarding: { name: string }; type: string; note: string };
  assert.equal(ev.metadata.name, 'e-1230');
  assert.equal(ev.metadata.namespace, 'bulk-30');
  assert.equal(ev.regarding.name, 'pod-123');
  assert.equal(ev.type, 'Warning');
  assert.match(ev.note, /^#seq=1230# /);
  assert.equal((JSON.parse(eventBody({ namespace: 'a', namePrefix: 'e-' }, 1231)) as { type: string }).type, 'Normal');
});
