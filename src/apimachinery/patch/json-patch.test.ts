import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import { applyJSONPatch } from './json-patch.ts';

const apply = (doc: object, ops: unknown, fv: 'Warn' | 'Strict' | 'Ignore' = 'Warn') =>
  applyJSONPatch(structuredClone(doc), Buffer.from(typeof ops === 'string' ? ops : JSON.stringify(ops)), fv);
const fails = (ops: unknown, code: number, message: string, fv: 'Warn' | 'Ignore' = 'Warn') =>
  assert.throws(() => apply({ a: 1 }, ops, fv), (e: unknown) => e instanceof StatusError && e.code === code && e.message === message);

test('applies every RFC 6902 operation', () => {
  const r = apply({ a: { b: 1 }, l: [1] }, [
    { op: 'add', path: '/a/c', value: 2 },
    { op: 'replace', path: '/a/b', value: 3 },
    { op: 'copy', from: '/a', path: '/d' },
    { op: 'move', from: '/d', path: '/e' },
    { op: 'remove', path: '/l/0' },
    { op: 'test', path: '/a/c', value: 2 },
  ]);
  assert.deepEqual(r.document, { a: { b: 3, c: 2 }, l: [], e: { b: 3, c: 2 } });
  assert.deepEqual(apply({ a: 1 }, 'null').document, { a: 1 });
});

test('a failing operation is the generic 422', () => {
  const msg = 'the server rejected our request due to an error in our request';
  fails([{ op: 'test', path: '/a', value: 2 }], 422, msg);
  fails([{ op: 'remove', path: '/zz' }], 422, msg);
  fails([{ op: 'frobnicate', path: '/a' }], 422, msg);
  let e: StatusError | undefined;
  try {
    apply({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]);
  } catch (x) {
    e = x as StatusError;
  }
  assert.ok(e);
  assert.equal(e.reason, 'Invalid');
  assert.deepEqual(e.details, {});
});

test('body decode errors, prefixed under Warn and Strict', () => {
  fails('[{', 400, 'error decoding patch: unexpected end of JSON input');
  fails('{"op":"add"}', 400, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
  fails('[{"op":5}]', 400, 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string');
  fails('{"op":"add"}', 400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch', 'Ignore');
  fails('x', 400, "invalid character 'x' looking for beginning of value", 'Ignore');
});

test('more than 10000 operations is a 413', () => {
  const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 }));
  fails(ops, 413, 'The allowed maximum operations in a JSON patch is 10000, got 10001');
  assert.equal(apply({ a: 1 }, ops.slice(1)).strictProblems.length, 0);
});

test('unknown and repeated op fields are strict problems', () => {
  const r = apply({ a: 1 }, '[{"op":"replace","path":"/a","value":2,"valeu":3,"op":"replace"}]');
  assert.deepEqual(r.strictProblems, ['json patch unknown field "[0].valeu"', 'json patch duplicate field "[0].op"']);
  assert.deepEqual(apply({ a: 1 }, '[{"op":"replace","path":"/a","value":2,"x":1}]', 'Ignore').strictProblems, []);
});

test('copy and move cannot nest the document past the nesting limit or copy more than upstream allows', () => {
  // Each copy of the document's root into itself adds a level; the 100th goes past the limit.
  const ops = Array.from({ length: 120 }, () => ({ op: 'copy', from: '/a', path: '/a/a' }));
  assert.throws(() => apply({ a: {} }, ops), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'the patched object exceeded max depth of 100');
  assert.equal(apply({ a: {} }, ops.slice(0, 98)).document !== undefined, true);
  // Each copy of a 100 KB value counts; 32 of them pass the 3 MiB budget.
  const big = 'x'.repeat(100_000);
  const copies = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/big', path: `/c${i}` }));
  fails([{ op: 'add', path: '/big', value: big }, ...copies], 422, 'the server rejected our request due to an error in our request');
  assert.equal(Object.keys(apply({ big }, copies.slice(0, 30)).document as object).length, 31);
});

test('a value nested at the limit is applied; the limit counts the path too', () => {
  const deep = (d: number): unknown => (d === 0 ? 1 : { a: deep(d - 1) });
  // The body [{"value": …}] adds two levels: deep(98) is a body at the limit.
  assert.equal(Object.keys(apply({ a: 1 }, [{ op: 'add', path: '/x', value: deep(98) }]).document as object).length, 2);
  assert.throws(() => apply({ a: 1 }, [{ op: 'add', path: '/x', value: deep(99) }]), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === "error decoding patch: invalid character '{' exceeded max depth of 100");
  // Added two levels down, the same value makes the object 101 deep.
  assert.throws(() => apply({ x: { y: {} } }, [{ op: 'add', path: '/x/y/z', value: deep(98) }]), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'the patched object exceeded max depth of 100');
});
