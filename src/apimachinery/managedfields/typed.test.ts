import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT } from '../../apis/events/v1/schema.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { normalizeConfig } from './config.ts';
import { FieldSet } from './fieldset.ts';
import { merge, removeItems } from './merge.ts';
import { fieldElement as f } from './pathelement.ts';
import { compare, toFieldSet, TypedError } from './typed.ts';
import { typeOf } from './typeschema.ts';

const T = typeOf(EVENTS_DEFS, EVENT);
const fv = (v: unknown): unknown => toFieldSet(v, T).toFieldsV1();

test('toFieldSet: the SSA schema of Event', () => {
  const table: [string, unknown, unknown][] = [
    ['scalars are leaves', { note: 'n', deprecatedCount: 2 }, { 'f:deprecatedCount': {}, 'f:note': {} }],
    ['ObjectReference is atomic', { regarding: { kind: 'Pod', name: 'p' } }, { 'f:regarding': {} }],
    ['EventSeries is granular', { series: { count: 2, lastObservedTime: 't' } }, { 'f:series': { 'f:count': {}, 'f:lastObservedTime': {} } }],
    ['labels per key, no `.`', { metadata: { labels: { app: 'a', tier: 'b' } } }, { 'f:metadata': { 'f:labels': { 'f:app': {}, 'f:tier': {} } } }],
    ['empty map is a leaf', { metadata: { annotations: {} } }, { 'f:metadata': { 'f:annotations': {} } }],
    ['null struct field is a leaf', { series: null }, { 'f:series': {} }],
    ['finalizers are a set', { metadata: { finalizers: ['b', 'a'] } }, { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } }],
    ['an empty set owns nothing', { metadata: { finalizers: [] } }, {}],
    [
      'ownerReferences by uid, atomic items',
      { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: '0a1b' }] } },
      { 'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"0a1b"}': {} } } },
    ],
    ['managedFields is atomic', { metadata: { managedFields: [{ manager: 'm' }] } }, { 'f:metadata': { 'f:managedFields': {} } }],
    ['duplicated set items are owned once, whole', { metadata: { finalizers: ['a', 'a'] } }, { 'f:metadata': { 'f:finalizers': { 'v:"a"': {} } } }],
  ];
  for (const [name, value, want] of table) assert.deepEqual(fv(value), want, name);
});

test('compare: appearing subtrees count with their node; atomic nodes are compared whole', () => {
  const c = compare({ metadata: {} }, { metadata: { labels: { app: 'a' } } }, T);
  assert.deepEqual(c.added.toFieldsV1(), { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
  const d = compare({ regarding: { name: 'a' }, note: 'x' }, { regarding: { name: 'b' }, note: 'x' }, T);
  assert.deepEqual(d.modified.toFieldsV1(), { 'f:regarding': {} });
  const e = compare({ metadata: { labels: { app: 'a', gone: 'g' } } }, { metadata: { labels: { app: 'b' } } }, T);
  assert.deepEqual(e.modified.toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  assert.deepEqual(e.removed.toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:gone': {} } } });
  const g = compare({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: ['a', 'b'] } }, T);
  assert.deepEqual(g.added.toFieldsV1(), { 'f:metadata': { 'f:finalizers': { 'v:"b"': {} } } });
  assert.ok(compare({ deprecatedSource: {} }, { deprecatedSource: {} }, T).added.empty());
});

test('merge: config scalars and atomics win, maps merge per key, sets union in upstream order', () => {
  const live = {
    note: 'old',
    regarding: { kind: 'Pod', name: 'p', uid: 'u' },
    metadata: { labels: { a: '1', b: '2' }, finalizers: ['a', 'b', 'c'] },
  };
  const config = { note: 'new', regarding: { kind: 'Pod', name: 'q' }, metadata: { labels: { b: '3', c: '4' }, finalizers: ['d', 'b'] } };
  assert.deepEqual(merge(live, config, T), {
    note: 'new',
    regarding: { kind: 'Pod', name: 'q' },
    metadata: { labels: { a: '1', b: '3', c: '4' }, finalizers: ['a', 'd', 'b', 'c'] },
  });
});

test('merge: ownerReferences merge per uid, items replaced whole', () => {
  const live = { metadata: { ownerReferences: [{ uid: 'u1', name: 'a', controller: true }, { uid: 'u2', name: 'b' }] } };
  const config = { metadata: { ownerReferences: [{ uid: 'u2', name: 'B' }, { uid: 'u3', name: 'c' }] } };
  assert.deepEqual(merge(live, config, T), {
    metadata: { ownerReferences: [{ uid: 'u1', name: 'a', controller: true }, { uid: 'u2', name: 'B' }, { uid: 'u3', name: 'c' }] },
  });
});

test('removeItems drops members whole and empties to null', () => {
  const v = { note: 'n', metadata: { labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] } };
  const s = FieldSet.of([f('metadata'), f('labels'), f('b')], [f('note')]);
  assert.deepEqual(removeItems(v, s, T), { metadata: { labels: { a: '1' }, finalizers: ['x', 'y'] } });
  const all = FieldSet.of([f('metadata'), f('labels'), f('a')], [f('metadata'), f('labels'), f('b')]);
  assert.deepEqual(removeItems({ metadata: { labels: { a: '1', b: '2' } } }, all, T), { metadata: { labels: null } });
});

test('normalizeConfig: undeclared fields and duplicate keys, with upstream paths and texts', () => {
  const table: [unknown, string][] = [
    [{ metadata: { foo: 1 } }, '.metadata.foo: field not declared in schema'],
    [{ metadata: { finalizers: ['a', 'a'] } }, '.metadata.finalizers: duplicate entries for key [="a"]'],
    [{ metadata: { ownerReferences: [{ uid: 'u' }, { uid: 'u' }] } }, '.metadata.ownerReferences: duplicate entries for key [uid="u"]'],
    [
      { metadata: { ownerReferences: [{ name: 'n' }] } },
      '.metadata.ownerReferences: element 0: associative list with keys has an element that omits all key fields ["uid"] (and doesn\'t have default values for any key fields)',
    ],
    [{ regarding: { bogus: 'x' }, note: 'n', x: 1 }, 'errors:\n  .regarding.bogus: field not declared in schema\n  .x: field not declared in schema'],
  ];
  for (const [config, message] of table) assert.throws(() => normalizeConfig(config, T), (e: unknown) => e instanceof TypedError && e.message === message);
});

test('normalizeConfig: timestamps take their canonical spelling', () => {
  assert.deepEqual(normalizeConfig({ eventTime: '2026-11-22T10:00:00Z', deprecatedFirstTimestamp: '2026-11-22T11:00:00+01:00' }, T), {
    eventTime: '2026-11-22T10:00:00.000000Z',
    deprecatedFirstTimestamp: '2026-11-22T10:00:00Z',
  });
});
