import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpamFilter, spamKey } from './spam-filter.ts';

test('25 events at once per key, then one more every 5 minutes', () => {
  let now = 0;
  const f = new SpamFilter(undefined, undefined, undefined, () => now);
  const passed = Array.from({ length: 30 }, () => !f.filter('k')).filter(Boolean).length;
  assert.equal(passed, 25);
  now += 299_000;
  assert.equal(f.filter('k'), true);
  now += 1_000;
  assert.equal(f.filter('k'), false);
  assert.equal(f.filter('k'), true);
  assert.equal(f.filter('other'), false);
});

test('the least recently used bucket is forgotten past the cache size', () => {
  const f = new SpamFilter(1, 1 / 300, 2, () => 0);
  assert.equal(f.filter('a'), false);
  assert.equal(f.filter('a'), true);
  f.filter('b');
  f.filter('c');
  assert.equal(f.filter('a'), false, 'a fresh, full bucket');
});

test('the key is the source, the object and the type, not the reason or the container', () => {
  const src = { controller: 'corelet', instance: 'n1' };
  const ref = { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1' };
  assert.equal(spamKey(src, ref, 'Warning'), spamKey(src, { ...ref, fieldPath: 'spec.containers{x}' } as typeof ref, 'Warning'));
  assert.notEqual(spamKey(src, ref, 'Warning'), spamKey(src, ref, 'Normal'));
  assert.notEqual(spamKey(src, ref, 'Warning'), spamKey({ ...src, instance: 'n2' }, ref, 'Warning'));
});
