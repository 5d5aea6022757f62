import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, ManagedFieldsEntry } from '../../apis/meta/v1/types.ts';
import { at, created, eventFieldManager, EXAMPLE_FIELDS, fieldsOf, GV, manifest } from './testing.ts';
import { encodeManagedFields, decodeManagedFields } from './managed.ts';

const fm = eventFieldManager();

/** A non-apply write of `mutate(live)` by `manager`. */
function write(live: KubeObject, manager: string, when: Date, mutate: (o: KubeObject) => void): KubeObject {
  const next = structuredClone(live);
  mutate(next);
  fm.update(live, next, manager, when);
  return next;
}

test('kubectl create of the example Event: one Update entry, exactly as upstream', () => {
  const obj = created(fm, manifest(), 'kubectl-create', at(0));
  assert.deepEqual(obj.metadata.managedFields, [
    { manager: 'kubectl-create', operation: 'Update', apiVersion: GV, time: '2026-11-22T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: EXAMPLE_FIELDS },
  ]);
  assert.equal(JSON.stringify(obj.metadata.managedFields![0]!.fieldsV1), JSON.stringify(EXAMPLE_FIELDS), 'key order');
});

test('time is RFC 3339 in whole seconds', () => {
  const obj = created(fm, manifest(), 'm', new Date('2026-11-22T10:00:07.891Z'));
  assert.equal(obj.metadata.managedFields![0]!.time, '2026-11-22T10:00:07Z');
});

test('a second manager changing a label takes it; the creator keeps the labels node', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  const next = write(live, 'kubectl-label', at(1), (o) => (o.metadata.labels = { app: 'other' }));
  assert.deepEqual(
    next.metadata.managedFields!.map((e) => [e.manager, e.time]),
    [['kubectl-create', '2026-11-22T10:00:00Z'], ['kubectl-label', '2026-11-22T10:01:00Z']],
  );
  assert.deepEqual(fieldsOf(next, 'kubectl-label'), { 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  assert.deepEqual((fieldsOf(next, 'kubectl-create') as Record<string, unknown>)['f:metadata'], { 'f:labels': {} });
});

test('removing a label takes it from its owner; adding labels records the new keys', () => {
  const live = created(fm, manifest({ labels: { app: 'a', tier: 't' } }), 'kubectl-create', at(0));
  const next = write(live, 'editor', at(2), (o) => (o.metadata.labels = { app: 'a', zone: 'z' }));
  assert.deepEqual(fieldsOf(next, 'editor'), { 'f:metadata': { 'f:labels': { 'f:zone': {} } } });
  assert.deepEqual((fieldsOf(next, 'kubectl-create') as Record<string, unknown>)['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {} } });
});

test('a write that changes nothing adds no entry and keeps times', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  const next = write(live, 'someone', at(5), () => {});
  assert.deepEqual(next.metadata.managedFields, live.metadata.managedFields);
});

test('the same manager writing again merges into its entry and bumps its time', () => {
  const live = created(fm, manifest(), 'ctl', at(0));
  const next = write(live, 'ctl', at(3), (o) => (o.metadata.annotations = { a: '1' }));
  assert.equal(next.metadata.managedFields!.length, 1);
  assert.equal(next.metadata.managedFields![0]!.time, '2026-11-22T10:03:00Z');
  assert.deepEqual((fieldsOf(next, 'ctl') as Record<string, unknown>)['f:metadata'], {
    'f:annotations': { '.': {}, 'f:a': {} },
    'f:labels': { '.': {}, 'f:app': {} },
  });
});

test('series and finalizers and ownerReferences record struct fields, set values and uid keys', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  const next = write(live, 'ctl', at(1), (o) => {
    o.series = { count: 2, lastObservedTime: '2026-11-22T10:01:00.000000Z' };
    o.metadata.finalizers = ['example.com/f'];
    o.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: '0a1b' }];
  });
  assert.deepEqual(fieldsOf(next, 'ctl'), {
    'f:metadata': {
      'f:finalizers': { '.': {}, 'v:"example.com/f"': {} },
      'f:ownerReferences': { '.': {}, 'k:{"uid":"0a1b"}': {} },
    },
    'f:series': { '.': {}, 'f:count': {}, 'f:lastObservedTime': {} },
  });
});

test('client-sent managedFields: [{}] and [] reset; then an existing object is not tracked by updates', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  for (const reset of [[{}], []] as ManagedFieldsEntry[][]) {
    const next = write(live, 'kubectl-patch', at(1), (o) => {
      o.metadata.managedFields = reset;
      o.metadata.labels = { app: 'x' };
    });
    assert.equal(next.metadata.managedFields, undefined, JSON.stringify(reset));
    const later = write(next, 'other', at(2), (o) => (o.metadata.labels = { app: 'y' }));
    assert.equal(later.metadata.managedFields, undefined);
  }
});

test('client-sent decodable managedFields replace the state, and the write is recorded on top', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  const mine: ManagedFieldsEntry = {
    manager: 'custom', operation: 'Update', apiVersion: GV, time: '2026-11-22T09:00:00Z', fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
  };
  const next = write(live, 'kubectl-edit', at(1), (o) => {
    o.metadata.managedFields = [mine];
    o.metadata.annotations = { a: 'b' };
  });
  assert.deepEqual(next.metadata.managedFields, [
    mine,
    { manager: 'kubectl-edit', operation: 'Update', apiVersion: GV, time: '2026-11-22T10:01:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} } } } },
  ]);
});

test('undecodable client-sent managedFields keep the live entries', () => {
  const live = created(fm, manifest(), 'kubectl-create', at(0));
  const bad: ManagedFieldsEntry[][] = [
    [{ manager: 'x', operation: 'Bogus' as 'Apply', apiVersion: GV, fieldsType: 'FieldsV1', fieldsV1: {} }],
    [{ manager: 'x', operation: 'Update', apiVersion: '', fieldsType: 'FieldsV1', fieldsV1: {} }],
    [{ manager: 'x', operation: 'Update', apiVersion: GV, fieldsType: 'FieldsV2', fieldsV1: {} }],
    [{ manager: 'x', operation: 'Update', apiVersion: GV, fieldsV1: {} }],
    [{ manager: 'x', operation: 'Update', apiVersion: GV, fieldsType: 'FieldsV1', fieldsV1: { 'k:nope': {} } }],
  ];
  for (const entries of bad) {
    const next = write(live, 'other', at(1), (o) => (o.metadata.managedFields = entries));
    assert.deepEqual(next.metadata.managedFields, live.metadata.managedFields, JSON.stringify(entries));
  }
});

test('entries sort by operation, time, manager, apiVersion, subresource', () => {
  const e = (manager: string, operation: 'Apply' | 'Update', time?: string, apiVersion = GV, subresource?: string): ManagedFieldsEntry => {
    const x: ManagedFieldsEntry = { manager, operation, apiVersion };
    if (time) x.time = time;
    x.fieldsType = 'FieldsV1';
    x.fieldsV1 = { 'f:note': {} };
    if (subresource) x.subresource = subresource;
    return x;
  };
  const entries = [
    e('b', 'Update', '2026-01-01T00:00:02Z'),
    e('z', 'Apply', '2026-01-01T00:00:05Z'),
    e('a', 'Update', '2026-01-01T00:00:02Z', 'x/v2'),
    e('a', 'Update', '2026-01-01T00:00:02Z', 'x/v1'),
    e('c', 'Update'),
    e('y', 'Apply', '2026-01-01T00:00:01Z'),
    e('a', 'Update', '2026-01-01T00:00:02Z', 'x/v1', 'status'),
  ];
  const sorted = encodeManagedFields(decodeManagedFields(entries))!;
  assert.deepEqual(
    sorted.map((x) => `${x.operation} ${x.manager} ${x.apiVersion} ${x.subresource ?? ''}`.trim()),
    ['Apply y events.cluster.io/v1', 'Apply z events.cluster.io/v1', 'Update c events.cluster.io/v1', 'Update a x/v1', 'Update a x/v1 status', 'Update a x/v2', 'Update b events.cluster.io/v1'],
  );
});

test('more than 10 Update entries: the oldest merge into ancient-changes', () => {
  let obj = created(fm, manifest({ labels: { l0: 'v' } }), 'm0', at(0));
  for (let n = 1; n <= 10; n++) obj = write(obj, `m${n}`, at(n), (o) => (o.metadata.labels = { ...o.metadata.labels, [`l${n}`]: 'v' }));
  const entries = obj.metadata.managedFields!;
  assert.equal(entries.length, 10);
  assert.deepEqual(entries[0], {
    manager: 'ancient-changes', operation: 'Update', apiVersion: GV, time: '2026-11-22T10:01:00Z', fieldsType: 'FieldsV1',
    fieldsV1: { ...EXAMPLE_FIELDS, 'f:metadata': { 'f:labels': { '.': {}, 'f:l0': {}, 'f:l1': {} } } },
  });
  assert.deepEqual(entries.slice(1).map((x) => x.manager), ['m2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10']);
  // The next updater folds the oldest remaining one into the bucket.
  obj = write(obj, 'm11', at(11), (o) => (o.metadata.labels = { ...o.metadata.labels, l11: 'v' }));
  assert.deepEqual(obj.metadata.managedFields!.map((x) => x.manager), ['ancient-changes', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10', 'm11']);
  assert.equal(obj.metadata.managedFields![0]!.time, '2026-11-22T10:02:00Z');
});

test('an empty manager name is recorded as unknown', () => {
  const obj = created(fm, manifest(), '', at(0));
  assert.equal(obj.metadata.managedFields![0]!.manager, 'unknown');
});
