import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goSprint } from './go-format.ts';
import { mergePatch } from './merge-patch.ts';

test('RFC 7386 examples', () => {
  assert.deepEqual(mergePatch({ a: 'b' }, { a: 'c' }), { a: 'c' });
  assert.deepEqual(mergePatch({ a: 'b' }, { b: 'c' }), { a: 'b', b: 'c' });
  assert.deepEqual(mergePatch({ a: 'b' }, { a: null }), {});
  assert.deepEqual(mergePatch({ a: [{ b: 'c' }] }, { a: [1] }), { a: [1] });
  assert.deepEqual(mergePatch({ a: 'foo' }, { a: { b: 'c', d: null } }), { a: { b: 'c' } });
  assert.deepEqual(mergePatch({ e: null }, { a: 1 }), { e: null, a: 1 });
  assert.deepEqual(mergePatch({}, { a: { bb: { ccc: null } } }), { a: { bb: {} } });
  assert.deepEqual(mergePatch({ a: 'b' }, ['c']), ['c']);
});

test('__proto__ keys stay data', () => {
  const out = mergePatch({}, JSON.parse('{"__proto__":{"x":1}}')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(out), ['__proto__']);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test("Go's %v of decoded JSON", () => {
  assert.equal(goSprint({ b: [1, 'x', null], a: { c: true } }), 'map[a:map[c:true] b:[1 x <nil>]]');
  assert.equal(goSprint(1.5), '1.5');
  assert.equal(goSprint(1234567.5), '1.2345675e+06');
  assert.equal(goSprint(0.00001), '1e-05');
});
