import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { compareSignature, CreateFieldsMemo } from './create-memo.ts';
import { at, created, eventFieldManager, EXAMPLE_FIELDS, GV, manifest, stored } from './testing.ts';
import { typeOf } from './typeschema.ts';
import { EVENT } from '../../apis/events/v1/schema.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { convertValue } from '../codec/index.ts';

const owner = (uid: string, name = 'rs') => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid });

/** Creates of many shapes, several sharing a shape with different values (memo hits). */
const BODIES: KubeObject[] = [
  manifest(),
  manifest({ note: 'other text', reason: 'Pulled' }),
  manifest({ labels: { app: 'x', tier: 'web' } }),
  manifest({ labels: { app: 'y', tier: 'db' } }),
  manifest({ labels: { app: 'x', zone: 'a' } }),
  manifest({ labels: {} }),
  manifest({ annotations: { 'a/b': '1' } }),
  manifest({ eventTime: undefined }),
  manifest({ eventTime: null }),
  manifest({ type: undefined, note: undefined }),
  manifest({ deprecatedSource: { component: 'kubelet', host: 'n1' } }),
  manifest({ deprecatedSource: { component: 'kubelet' } }),
  manifest({ deprecatedCount: 3, deprecatedFirstTimestamp: '2026-11-22T10:00:00Z' }),
  manifest({ series: { count: 2, lastObservedTime: '2026-11-22T10:00:00.000000Z' } }),
  manifest({ related: { kind: 'Node', name: 'n1' } }),
  manifest({ ownerReferences: [owner('u1')] }),
  manifest({ ownerReferences: [owner('u2')] }),
  manifest({ ownerReferences: [owner('u1'), owner('u2')] }),
  manifest({ ownerReferences: [owner('u1'), owner('u1', 'dup')] }),
  manifest({ finalizers: ['a', 'b'] }),
  manifest({ finalizers: ['a', 'a'] }),
  manifest({ finalizers: ['c'] }),
  manifest({ labels: { constructor: 'x', toString: 'y' } }),
  { apiVersion: GV, kind: 'Event', metadata: { name: 'bare', namespace: 'x' } } as KubeObject,
].map((b) => {
  const m = b.metadata as Record<string, unknown>;
  for (const k of ['ownerReferences', 'finalizers'] as const) {
    const v = (b as unknown as Record<string, unknown>)[k];
    if (v !== undefined) {
      m[k] = v;
      delete (b as unknown as Record<string, unknown>)[k];
    }
  }
  return b;
});

test('memoized creates record exactly what the general code records, for every shape', () => {
  const warm = eventFieldManager();
  // Twice through: the second pass is all memo hits.
  for (const pass of [0, 1]) {
    for (const body of BODIES) {
      const got = created(warm, body, 'kubectl-create', at(pass, 7));
      const want = created(eventFieldManager(), body, 'kubectl-create', at(pass, 7));
      assert.deepEqual(got.metadata.managedFields, want.metadata.managedFields, JSON.stringify(body.metadata));
      assert.equal(JSON.stringify(got.metadata.managedFields), JSON.stringify(want.metadata.managedFields), 'key order');
    }
  }
});

test('objects of one shape share one frozen FieldsV1; the time still follows the clock', () => {
  const fm = eventFieldManager();
  const a = created(fm, manifest({ note: 'one' }), 'm', new Date('2026-11-22T10:00:07.891Z'));
  const b = created(fm, manifest({ note: 'two' }), 'm', new Date('2026-11-22T10:00:07.999Z'));
  const c = created(fm, manifest({ note: 'three' }), 'other', new Date('2026-11-22T10:00:08.001Z'));
  assert.deepEqual(a.metadata.managedFields![0]!.fieldsV1, EXAMPLE_FIELDS);
  assert.equal(b.metadata.managedFields![0]!.fieldsV1, c.metadata.managedFields![0]!.fieldsV1);
  assert.ok(Object.isFrozen(b.metadata.managedFields![0]!.fieldsV1));
  assert.deepEqual(b.metadata.managedFields!.map((e) => [e.manager, e.time]), [['m', '2026-11-22T10:00:07Z']]);
  assert.deepEqual(c.metadata.managedFields!.map((e) => [e.manager, e.time]), [['other', '2026-11-22T10:00:08Z']]);
});

test('a create that carries managedFields takes the general path', () => {
  const warm = eventFieldManager();
  created(warm, manifest(), 'kubectl-create', at(0));
  const body = () => {
    const b = manifest({ labels: { app: 'x', keep: 'y' } });
    (b.metadata as Record<string, unknown>)['managedFields'] = [
      { manager: 'importer', operation: 'Update', apiVersion: GV, time: '2026-11-22T09:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:note': {} } },
    ];
    return b;
  };
  const got = created(warm, body(), 'kubectl-create', at(1));
  assert.deepEqual(got.metadata.managedFields, created(eventFieldManager(), body(), 'kubectl-create', at(1)).metadata.managedFields);
  assert.equal(Object.isFrozen(got.metadata.managedFields![0]!.fieldsV1), false, 'not from the memo');
});

test('the signature tells apart what changes the field set and ignores new leaf values', () => {
  const t = typeOf(EVENTS_DEFS, EVENT);
  const empty = convertValue({}, EVENTS_DEFS, EVENT).object;
  const sig = (b: KubeObject) => compareSignature(empty, stored(b), t);
  assert.equal(sig(manifest({ note: 'a' })), sig(manifest({ note: 'b' })));
  assert.equal(sig(manifest({ labels: { app: '1' } })), sig(manifest({ labels: { app: '2' } })));
  assert.notEqual(sig(manifest({ labels: { app: '1' } })), sig(manifest({ labels: { ap: '1' } })));
  assert.notEqual(sig(manifest({ labels: { 'a:b': '' } })), sig(manifest({ labels: { a: '', b: '' } })));
  assert.notEqual(sig(manifest()), sig(manifest({ eventTime: null })));
});

test('a malformed associative list has no signature (the general code reports it)', () => {
  const t = typeOf(EVENTS_DEFS, EVENT);
  const empty = convertValue({}, EVENTS_DEFS, EVENT).object;
  const obj = stored(manifest());
  (obj.metadata as Record<string, unknown>)['ownerReferences'] = [{ name: 'no-uid' }];
  assert.throws(() => compareSignature(empty, obj, t));
});

test('the memo is bounded, dropping the oldest shape first', () => {
  const memo = new CreateFieldsMemo(2);
  memo.set('a', { 'f:a': {} });
  memo.set('b', null);
  memo.set('c', { 'f:c': {} });
  assert.equal(memo.size, 2);
  assert.equal(memo.get('a'), undefined);
  assert.equal(memo.get('b'), null);
  assert.deepEqual(memo.get('c'), { 'f:c': {} });
});
