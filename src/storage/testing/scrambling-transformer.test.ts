import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyContext, isPromise } from '../value/transformer.ts';
import { AsyncFirstTransformer, SCRAMBLED_PREFIX, ScramblingTransformer } from './scrambling-transformer.ts';

const value = Buffer.from('{"kind":"Thing","metadata":{"name":"a","namespace":"ns"},"data":"x"}');

test('scrambled bytes carry the prefix, differ from the value and read back only under their own key', () => {
  const t = new ScramblingTransformer();
  const a = new KeyContext('/t/ns/a');
  const stored = t.transformToStorage(value, a);
  assert.ok(stored.subarray(0, SCRAMBLED_PREFIX.length).equals(SCRAMBLED_PREFIX));
  assert.equal(stored.indexOf('"name"'), -1);
  assert.equal(stored.indexOf(value), -1);
  assert.deepEqual(t.transformFromStorage(stored, a), { data: value, stale: false });
  assert.throws(() => t.transformFromStorage(stored, new KeyContext('/t/ns/b')), /scrambled under another key/);
  assert.throws(() => t.transformFromStorage(value, a), /not scrambled/);
  t.stale = true;
  assert.equal(t.transformFromStorage(stored, a).stale, true);
  assert.deepEqual([t.reads, t.writes], [4, 1]);
});

test('the async-first wrapper answers a value asynchronously once, then synchronously', async () => {
  const t = new AsyncFirstTransformer(new ScramblingTransformer());
  const ctx = new KeyContext('/t/ns/a');
  const first = t.transformToStorage(value, ctx);
  assert.ok(!isPromise(first));
  const second = t.transformToStorage(value, ctx);
  assert.ok(isPromise(second));
  assert.deepEqual(await second, first);
  const r1 = t.transformFromStorage(first, ctx);
  assert.ok(isPromise(r1));
  assert.deepEqual((await r1).data, value);
  const r2 = t.transformFromStorage(first, ctx);
  assert.ok(!isPromise(r2));
  assert.deepEqual(r2.data, value);
  assert.equal(t.asyncReads, 1);
});
