import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../apis/events/v1/types.ts';
import { EVENT_FIELD_LABELS, eventSelectableFields } from './fields.ts';

const base: Event = {
  metadata: { name: 'e1', namespace: 'ns' },
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctrl',
  reason: 'Started',
  type: 'Normal',
  regarding: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
  deprecatedSource: {},
  deprecatedFirstTimestamp: null,
  deprecatedLastTimestamp: null,
};

test('the supported labels are the events/v1 ones', () => {
  assert.equal(EVENT_FIELD_LABELS.size, 13);
  for (const l of ['regarding.kind', 'reportingController', 'source', 'metadata.name']) assert.ok(EVENT_FIELD_LABELS.has(l), l);
  for (const l of ['involvedObject.kind', 'reportingComponent', 'note']) assert.ok(!EVENT_FIELD_LABELS.has(l), l);
});

test('every label has a value', () => {
  assert.deepEqual(eventSelectableFields(base), {
    'metadata.name': 'e1',
    'metadata.namespace': 'ns',
    reason: 'Started',
    type: 'Normal',
    'regarding.kind': 'Pod',
    'regarding.namespace': 'ns',
    'regarding.name': 'p',
    'regarding.uid': 'u',
    'regarding.apiVersion': 'v1',
    'regarding.resourceVersion': '7',
    'regarding.fieldPath': 'spec.containers{c}',
    reportingController: 'example.com/ctrl',
    source: 'example.com/ctrl',
  });
  assert.deepEqual(Object.keys(eventSelectableFields(base)).sort(), [...EVENT_FIELD_LABELS].sort());
});

test('source prefers deprecatedSource.component; unset fields are empty strings', () => {
  assert.equal(eventSelectableFields({ ...base, deprecatedSource: { component: 'kubelet' } }).source, 'kubelet');
  const bare = eventSelectableFields({ ...base, reportingController: undefined, reason: undefined, type: undefined, regarding: {} });
  assert.equal(bare.source, '');
  assert.equal(bare.reason, '');
  assert.equal(bare['regarding.kind'], '');
});
