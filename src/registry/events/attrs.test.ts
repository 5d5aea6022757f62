import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../apis/events/v1/types.ts';
import { StringPool, ValuePool } from '../../util/intern.ts';
import { newEventAttrs, newEventEntry, uidRef, type EventAttrsPools, type EventProfile } from './attrs.ts';
import { EVENT_FIELD_LABELS, eventSelectableFields } from './fields.ts';

const base: Event = {
  metadata: { name: 'e1', namespace: 'ns', uid: 'u1' },
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctrl',
  reason: 'Started',
  type: 'Normal',
  regarding: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
  deprecatedSource: {},
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
};

const unshared: EventAttrsPools = { string: (x) => x, version: (x) => x, profile: (_k, make) => make() };

test('cached attributes and entries read every label as eventSelectableFields does, and nothing else', () => {
  const variants: Event[] = [
    base,
    { ...base, deprecatedSource: { component: 'kubelet' }, metadata: { name: 'e2.17a9c3f0d2b1e4a5', namespace: 'ns', uid: 'x', labels: { a: 'b' } } },
    { ...base, reportingController: undefined, reason: undefined, type: undefined, regarding: {} },
  ];
  for (const ev of variants) {
    const want = eventSelectableFields(ev);
    const value = Buffer.from('{}');
    const entry = newEventEntry(`/events/${ev.metadata.namespace}/${ev.metadata.name}`, 9, value, ev, unshared);
    assert.equal(entry.attrs, entry);
    assert.equal(entry.value, value);
    assert.equal(entry.rv, 9);
    for (const attrs of [newEventAttrs(ev, unshared), entry.attrs]) {
      for (const label of EVENT_FIELD_LABELS) assert.equal(attrs.field(label), want[label], label);
      for (const other of ['note', 'involvedObject.name', 'metadata.uid', '', 'constructor']) assert.equal(attrs.field(other), '', other);
      assert.equal(attrs.name, ev.metadata.name);
      assert.equal(attrs.namespace, ev.metadata.namespace);
      assert.equal(attrs.uid, ev.metadata.uid ?? '');
      assert.equal(attrs.labels, ev.metadata.labels);
    }
  }
});

test('events with the same shared fields point at one profile; a profile key cannot be forged by the values', () => {
  const strings = new StringPool(10);
  const profiles = new ValuePool<EventProfile>(10);
  const pools: EventAttrsPools = { string: (x) => strings.intern(x), version: (x) => x, profile: (k, make) => profiles.intern(k, make) };
  const a = newEventAttrs(base, pools);
  const b = newEventAttrs({ ...base, metadata: { name: 'e2', namespace: 'ns' }, regarding: { ...base.regarding, name: 'q' } }, pools);
  assert.equal(a.profile, b.profile);
  assert.equal(profiles.size, 1);
  // Moving text between neighbouring fields keeps the concatenation but must give another profile.
  const c = newEventAttrs({ ...base, reason: 'Start', type: 'edNormal' }, pools);
  assert.notEqual(c.profile, a.profile);
  assert.equal(c.field('reason'), 'Start');
  assert.equal(c.field('type'), 'edNormal');
});

test('the uid of a cached event is read from its bytes, or kept as a string when it is not there as plain text', () => {
  const uid = '6070b368-b2a2-4fc6-b0f8-0b5b53b22307';
  const ev: Event = { ...base, metadata: { name: 'e1', namespace: 'ns', uid } };
  const value = Buffer.from(JSON.stringify({ kind: 'Event', metadata: { name: 'e1', namespace: 'ns', uid }, regarding: { uid: 'other' } }));
  const entry = newEventEntry('/events/ns/e1', 3, value, ev, unshared);
  assert.equal(typeof entry.uidRef, 'number');
  assert.equal(entry.uid, uid);
  assert.equal(entry.attrs.uid, uid);
  assert.equal(uidRef(value, 'other'), 'other'.length + 256 * (value.indexOf('"uid":"other"') + 7));
  assert.equal(uidRef(value, 'missing'), 'missing');
  assert.equal(uidRef(value, ''), '');
  const odd = 'a<b"c';
  assert.equal(uidRef(Buffer.from(`{"uid":"a\\u003cb\\"c"}`), odd), odd);
  assert.equal(newEventEntry('/events/ns/e1', 3, Buffer.from('{}'), { ...ev, metadata: { ...ev.metadata, uid: odd } }, unshared).uid, odd);
});
