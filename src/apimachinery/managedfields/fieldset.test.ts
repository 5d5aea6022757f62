import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet, FieldsV1Error } from './fieldset.ts';
import {
  compareStrings, fieldElement as f, indexElement as i, keyElement as k, pathString, valueElement as v,
} from './pathelement.ts';

test('FieldsV1 keys: f:, k: with sorted compact keys, v: JSON, i:', () => {
  assert.equal(f('labels').s, 'f:labels');
  assert.equal(k([['uid', '0a1b'], ['name', 'n']]).s, 'k:{"name":"n","uid":"0a1b"}');
  assert.equal(v('foregroundDeletion').s, 'v:"foregroundDeletion"');
  assert.equal(v('a<b').s, 'v:"a\\u003cb"', 'Go escapes HTML characters');
  assert.equal(i(3).s, 'i:3');
});

test('printed paths as in conflict messages', () => {
  const table: [Parameters<typeof pathString>[0], string][] = [
    [[f('metadata'), f('labels'), f('app')], '.metadata.labels.app'],
    [[f('metadata'), f('ownerReferences'), k([['uid', 'U']])], '.metadata.ownerReferences[uid="U"]'],
    [[f('metadata'), f('finalizers'), v('x')], '.metadata.finalizers[="x"]'],
    [[f('a'), i(0)], '.a[0]'],
  ];
  for (const [p, want] of table) assert.equal(pathString(p), want);
});

test('sibling order: ".", then f: by name, then k:, v:, i:', () => {
  const s = FieldSet.of([i(1)], [v('b')], [v('a')], [k([['uid', 'z']])], [f('b')], [f('a')], [f('b'), f('c')]);
  assert.deepEqual(Object.keys(s.toFieldsV1()), ['f:a', 'f:b', 'k:{"uid":"z"}', 'v:"a"', 'v:"b"', 'i:1']);
  assert.deepEqual(s.toFieldsV1()['f:b'], { '.': {}, 'f:c': {} });
});

test('string order is UTF-8 byte order, as Go', () => {
  assert.equal(compareStrings('a', 'b'), -1);
  assert.equal(compareStrings('ab', 'a'), 1);
  // U+FF5E sorts before U+1F600 in UTF-8 (and code points) although not in UTF-16.
  assert.equal(compareStrings('\uff5e', '\u{1f600}'), -1);
});

test('FieldsV1 round trip keeps members and `.` markers', () => {
  const fields = {
    'f:metadata': { 'f:finalizers': { '.': {}, 'v:"a"': {} }, 'f:labels': { '.': {}, 'f:app': {} }, 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } },
    'f:series': { 'f:count': {} },
  };
  const s = FieldSet.fromFieldsV1(fields);
  assert.ok(s.has([f('metadata'), f('labels')]));
  assert.ok(s.has([f('metadata'), f('labels'), f('app')]));
  assert.ok(s.has([f('metadata'), f('ownerReferences'), k([['uid', 'u1']])]));
  assert.ok(!s.has([f('metadata')]));
  assert.ok(!s.has([f('series')]));
  assert.deepEqual(s.toFieldsV1(), fields);
});

test('FieldsV1 decoding: unknown element types are skipped, malformed keys fail', () => {
  assert.deepEqual(FieldSet.fromFieldsV1({ 'x:what': {}, 'f:a': {} }).toFieldsV1(), { 'f:a': {} });
  assert.ok(FieldSet.fromFieldsV1({}).empty());
  for (const bad of [{ f: {} }, { 'fa': {} }, { 'k:notjson': {} }, { 'k:[1]': {} }, { 'i:x': {} }, { 'f:a': 1 }, []]) {
    assert.throws(() => FieldSet.fromFieldsV1(bad), FieldsV1Error, JSON.stringify(bad));
  }
});

test('set algebra follows upstream: parent - child = parent, child - parent = child', () => {
  const parent = FieldSet.of([f('a')]);
  const child = FieldSet.of([f('a'), f('b')]);
  assert.deepEqual(parent.difference(child).toFieldsV1(), { 'f:a': {} });
  assert.deepEqual(child.difference(parent).toFieldsV1(), { 'f:a': { 'f:b': {} } });
  const both = parent.union(child);
  assert.deepEqual(both.toFieldsV1(), { 'f:a': { '.': {}, 'f:b': {} } });
  assert.deepEqual(both.intersection(child).toFieldsV1(), { 'f:a': { 'f:b': {} } });
  assert.ok(child.difference(child).empty());
  assert.deepEqual(
    both.paths().map((p) => pathString(p)),
    ['.a', '.a.b'],
  );
});
