import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { StatusError } from '../errors.ts';
import { at, created, eventFieldManager, EXAMPLE_FIELDS, fieldsOf, GV, manifest, stored } from './testing.ts';

const fm = eventFieldManager();
const { 'f:metadata': _, ...EXAMPLE_TOP } = EXAMPLE_FIELDS;

/** An apply, with the result stored as the store would (new RV). */
function apply(live: KubeObject | null, config: KubeObject, manager: string, when: Date, force = false): KubeObject {
  return fm.apply(live, structuredClone(config), manager, force, when);
}

function conflictOf(fn: () => unknown): { message: string; causes: unknown } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 409);
    assert.equal(e.reason, 'Conflict');
    return { message: e.message, causes: e.details?.causes };
  }
  assert.fail('expected a conflict');
}

test('apply --server-side of the example Event creates it with one Apply entry, labels without `.`', () => {
  const obj = apply(null, manifest(), 'kubectl', at(0));
  assert.deepEqual(obj.metadata.managedFields, [
    {
      manager: 'kubectl', operation: 'Apply', apiVersion: GV, time: '2026-11-22T10:00:00Z', fieldsType: 'FieldsV1',
      fieldsV1: { ...EXAMPLE_FIELDS, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
    },
  ]);
  assert.equal(obj.apiVersion, GV);
  assert.deepEqual(obj.metadata.labels, { app: 'demo' });
  assert.equal(obj['eventTime'], '2026-11-22T10:00:00.000000Z');
  assert.deepEqual(obj['deprecatedSource'], {}, 'the canonical object form');
});

test('re-applying the same config is a no-op: the result equals live', () => {
  const live = stored(apply(null, manifest(), 'kubectl', at(0)));
  const again = apply(live, manifest({ eventTime: '2026-11-22T10:00:00Z' }), 'kubectl', at(5));
  assert.deepEqual(again, live);
});

test('one conflict: message, cause, and the updater printed with its apiVersion', () => {
  let live = created(fm, manifest(), 'kubectl-create', at(0));
  const next = structuredClone(live);
  next.metadata.labels = { app: 'other' };
  fm.update(live, next, 'kubectl-label', at(1));
  live = next;
  const c = conflictOf(() => apply(live, manifest({ labels: { app: 'third' } }), 'kubectl', at(2)));
  assert.equal(c.message, 'Apply failed with 1 conflict: conflict with "kubectl-label" using events.cluster.io/v1: .metadata.labels.app');
  assert.deepEqual(c.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-label" using events.cluster.io/v1', field: '.metadata.labels.app' }]);
});

test('setting a field to its current value is not a conflict: ownership becomes shared', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  const obj = apply(live, manifest(), 'kubectl', at(1));
  assert.deepEqual(fieldsOf(obj, 'kubectl', 'Apply'), { ...EXAMPLE_FIELDS, 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  assert.deepEqual(fieldsOf(obj, 'kubectl-create'), EXAMPLE_FIELDS);
  // The object did not change: no time for the applier, as upstream.
  assert.equal(obj.metadata.managedFields![0]!.time, undefined);
  const { managedFields: _a, ...metaA } = obj.metadata;
  const { managedFields: _b, ...metaB } = live.metadata;
  assert.deepEqual(metaA, metaB);
});

test('N conflicts: grouped by manager (sorted), appliers printed without apiVersion', () => {
  let live = apply(null, manifest({ labels: { app: 'a', tier: 't' }, annotations: { note: '1' } }), 'first', at(0));
  live = stored(live);
  const next = structuredClone(live);
  next.metadata.labels = { app: 'b', tier: 'u' };
  fm.update(live, next, 'kubectl-label', at(1));
  const c = conflictOf(() => apply(next, manifest({ labels: { app: 'c', tier: 'v' }, annotations: { note: '2' } }), 'second', at(2)));
  assert.equal(
    c.message,
    'Apply failed with 3 conflicts: conflicts with "first":\n- .metadata.annotations.note\n' +
      'conflicts with "kubectl-label" using events.cluster.io/v1:\n- .metadata.labels.app\n- .metadata.labels.tier',
  );
  assert.deepEqual(c.causes, [
    { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.metadata.annotations.note' },
    { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-label" using events.cluster.io/v1', field: '.metadata.labels.app' },
    { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-label" using events.cluster.io/v1', field: '.metadata.labels.tier' },
  ]);
});

test('force takes the fields from the other managers', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  const next = structuredClone(live);
  next.metadata.labels = { app: 'other' };
  fm.update(live, next, 'kubectl-label', at(1));
  const obj = apply(next, manifest({ labels: { app: 'mine' } }), 'kubectl', at(2), true);
  assert.deepEqual(obj.metadata.labels, { app: 'mine' });
  assert.deepEqual(obj.metadata.managedFields!.map((e) => `${e.operation} ${e.manager}`), ['Apply kubectl', 'Update kubectl-create']);
  assert.deepEqual(fieldsOf(obj, 'kubectl', 'Apply'), { ...EXAMPLE_FIELDS, 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  assert.equal(obj.metadata.managedFields![0]!.time, '2026-11-22T10:02:00Z');
});

test('conflicts on set items and map-list items name them by value and key', () => {
  const owner = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', name, uid: '0a1b' });
  const live = stored(apply(null, manifest({ metadata: { name: 'ev1', namespace: 'x', ownerReferences: [owner('a')], finalizers: ['f1'] } }), 'm1', at(0)));
  assert.deepEqual(fieldsOf(live, 'm1', 'Apply'), {
    ...EXAMPLE_TOP,
    'f:metadata': { 'f:finalizers': { 'v:"f1"': {} }, 'f:ownerReferences': { 'k:{"uid":"0a1b"}': {} } },
  });
  const c = conflictOf(() => apply(live, manifest({ metadata: { name: 'ev1', namespace: 'x', ownerReferences: [owner('b')] } }), 'm2', at(1)));
  assert.equal(c.message, 'Apply failed with 1 conflict: conflict with "m1": .metadata.ownerReferences[uid="0a1b"]');
  // The same finalizer from a second applier is shared; a new one is added to the set.
  const obj = apply(live, manifest({ metadata: { name: 'ev1', namespace: 'x', finalizers: ['f1', 'f2'] } }), 'm2', at(1));
  assert.deepEqual(obj.metadata.finalizers, ['f1', 'f2']);
});

test('pruning: fields the applier stops sending go, unless another manager owns them', () => {
  const first = stored(apply(null, manifest({ labels: { a: '1', b: '2', c: '3' } }), 'm1', at(0)));
  // m2 shares b (same value), so b survives m1 dropping it; c has no other owner and goes.
  const shared = stored(apply(first, manifest({ labels: { b: '2' } }), 'm2', at(1)));
  const obj = apply(shared, manifest({ labels: { a: '1' } }), 'm1', at(2));
  assert.deepEqual(obj.metadata.labels, { a: '1', b: '2' });
  assert.deepEqual((fieldsOf(obj, 'm1', 'Apply') as Record<string, unknown>)['f:metadata'], { 'f:labels': { 'f:a': {} } });
  assert.deepEqual((fieldsOf(obj, 'm2', 'Apply') as Record<string, unknown>)['f:metadata'], { 'f:labels': { 'f:b': {} } });
});

test('pruning drops a whole unowned subtree, and never system metadata', () => {
  const first = stored(apply(null, manifest({ labels: { a: '1' }, series: { count: 2, lastObservedTime: '2026-11-22T10:00:00Z' } }), 'm1', at(0)));
  const obj = apply(first, manifest({ labels: {} }), 'm1', at(1));
  assert.equal(obj['series'], undefined);
  assert.equal(obj.metadata.labels, undefined);
  assert.equal(obj.metadata.name, 'ev1');
  assert.equal(obj.metadata.uid, first.metadata.uid);
  assert.equal(obj.metadata.resourceVersion, first.metadata.resourceVersion);
  assert.equal(obj.metadata.creationTimestamp, first.metadata.creationTimestamp);
});

test('an untracked object: what exists is attributed to before-first-apply first', () => {
  const live = stored(manifest());
  const c = conflictOf(() => apply(live, manifest({ labels: { app: 'new' } }), 'ctl', at(1)));
  assert.equal(c.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using events.cluster.io/v1: .metadata.labels.app');
  const obj = apply(live, manifest(), 'ctl', at(1));
  assert.deepEqual(obj.metadata.managedFields!.map((e) => `${e.operation} ${e.manager} ${e.time}`), [
    'Apply ctl undefined',
    'Update before-first-apply 2026-11-22T10:01:00Z',
  ]);
  assert.deepEqual(fieldsOf(obj, 'before-first-apply'), EXAMPLE_FIELDS);
});

test('managedFields in an apply body: 400, even when empty', () => {
  for (const mf of [[], [{ manager: 'x' }]]) {
    assert.throws(
      () => apply(null, manifest({ metadata: { name: 'ev1', managedFields: mf } }), 'kubectl', at(0)),
      (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === 'metadata.managedFields must be nil',
    );
  }
});

test("configs that do not fit the schema fail with upstream's text, as 400 (upstream: 500)", () => {
  const table: [KubeObject, string][] = [
    [manifest({ metadata: { name: 'ev1', namespace: 'x', finalizers: ['a', 'a'] } }), '.metadata.finalizers: duplicate entries for key [="a"]'],
    [manifest({ bogus: 1 }), '.bogus: field not declared in schema'],
  ];
  for (const [config, tail] of table) {
    assert.throws(
      () => apply(null, config, 'kubectl', at(0)),
      (e: unknown) =>
        e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' &&
        e.message === `failed to create typed patch object (x/ev1; events.cluster.io/v1, Kind=Event): ${tail}`,
    );
  }
});
