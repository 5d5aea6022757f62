import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT } from '../../apis/events/v1/schema.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { StatusError } from '../errors.ts';
import { PatchSchema, strategicMergePatch } from './strategic-merge.ts';

const schema = new PatchSchema(EVENTS_DEFS, EVENT);
const smp = (original: object, patch: object) => strategicMergePatch(structuredClone(original) as Record<string, unknown>, structuredClone(patch) as Record<string, unknown>, schema);
const owner = (uid: string, name = uid) => ({ apiVersion: 'v1', kind: 'Pod', name, uid });
const fails = (original: object, patch: object, code: number, message: string) =>
  assert.throws(() => smp(original, patch), (e: unknown) => e instanceof StatusError && e.code === code && e.message === message);

test('maps merge key by key; null deletes; scalars and plain lists are replaced', () => {
  const out = smp(
    { metadata: { labels: { a: '1', b: '2' } }, note: 'x', series: { count: 2 }, metadata2: undefined },
    { metadata: { labels: { b: null, c: '3' } }, series: { count: 3 }, note: 'y' },
  );
  assert.deepEqual(out.metadata, { labels: { a: '1', c: '3' } });
  assert.deepEqual(out.series, { count: 3 });
  assert.equal(out.note, 'y');
});

test('finalizers merge as a set; $deleteFromPrimitiveList removes', () => {
  assert.deepEqual(smp({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['b', 'c'] } }).metadata, { finalizers: ['a', 'b', 'c'] });
  assert.deepEqual(smp({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }).metadata, { finalizers: ['a', 'c'] });
  // Nothing to delete from: the directive is dropped, never stored.
  assert.deepEqual(smp({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }).metadata, {});
});

test('ownerReferences merge by uid; $patch delete and replace items', () => {
  const orig = { metadata: { ownerReferences: [owner('1', 'a'), owner('2', 'b')] } };
  const merged = smp(orig, { metadata: { ownerReferences: [{ uid: '2', name: 'B' }, owner('3')] } });
  assert.deepEqual((merged.metadata as any).ownerReferences, [owner('1', 'a'), owner('2', 'B'), owner('3')]);
  const deleted = smp(orig, { metadata: { ownerReferences: [{ uid: '1', $patch: 'delete' }] } });
  assert.deepEqual((deleted.metadata as any).ownerReferences, [owner('2', 'b')]);
  const replaced = smp(orig, { metadata: { ownerReferences: [{ $patch: 'replace' }, owner('9')] } });
  assert.deepEqual((replaced.metadata as any).ownerReferences, [owner('9')]);
});

test('$patch on maps: replace keeps only the patch, delete empties', () => {
  const orig = { metadata: { labels: { a: '1', b: '2' } } };
  assert.deepEqual(smp(orig, { metadata: { labels: { $patch: 'replace', c: '3' } } }).metadata, { labels: { c: '3' } });
  assert.deepEqual(smp(orig, { metadata: { labels: { $patch: 'delete' } } }).metadata, { labels: {} });
  // A new subtree loses the maps that carry directives.
  assert.deepEqual(smp({ metadata: {} }, { metadata: { annotations: { $patch: 'delete' } } }).metadata, {});
  fails(orig, { metadata: { labels: { $patch: 'bogus' } } }, 400, 'unknown patch type: bogus in map: map[$patch:bogus]');
});

test('$retainKeys clears unlisted keys and checks the patch against the list', () => {
  const orig = { metadata: { labels: { a: '1', b: '2', c: '3' } } };
  assert.deepEqual(smp(orig, { metadata: { labels: { $retainKeys: ['a', 'd'], d: '4' } } }).metadata, { labels: { a: '1', d: '4' } });
  fails(orig, { metadata: { labels: { $retainKeys: ['a'], d: '4' } } }, 400, 'invalid patch format of retainKeys');
  fails(orig, { metadata: { labels: { $retainKeys: 'a' } } }, 400, 'invalid patch format of retainKeys');
});

test('$setElementOrder orders merge lists', () => {
  const out = smp({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$setElementOrder/finalizers': ['c', 'b', 'a'] } });
  assert.deepEqual(out.metadata, { finalizers: ['c', 'b', 'a'] });
  const refs = smp(
    { metadata: { ownerReferences: [owner('1'), owner('2')] } },
    { metadata: { '$setElementOrder/ownerReferences': [{ uid: '3' }, { uid: '2' }, { uid: '1' }], ownerReferences: [owner('3')] } },
  );
  assert.deepEqual((refs.metadata as any).ownerReferences.map((o: any) => o.uid), ['3', '2', '1']);
  fails({ metadata: {} }, { metadata: { '$setElementOrder/finalizers': 'x' } }, 400, 'invalid patch format of setElementOrder list');
  fails({ metadata: {} }, { metadata: { $setElementOrder: ['x'] } }, 400, 'invalid patch format of setElementOrder list');
});

test('lists of lists are the generic 422; an unknown merge-key item is a 400', () => {
  fails({ metadata: { finalizers: [] } }, { metadata: { finalizers: [['b']] } }, 422, 'the server rejected our request due to an error in our request');
  fails({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [['b']] } }, 400, 'list element types are not identical: [[a] [[b]]]');
  fails({ metadata: { ownerReferences: [owner('1')] } }, { metadata: { ownerReferences: [{ name: 'x' }] } }, 400, 'map: map[name:x] does not contain declared merge key: uid');
});
