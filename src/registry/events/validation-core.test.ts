/** Validation of writes through core/v1 (`core` mode): upstream's legacy rules only, core field names in causes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../apis/events/v1/types.ts';
import type { FieldError } from '../../apimachinery/field.ts';
import { validateCreate, validateUpdate } from '../rest/validate.ts';
import { eventStrategyFor } from './strategy.ts';
import type { EventValidationMode } from './validation.ts';

// What the store checks of an Event: the strategy's rules with the common ObjectMeta rules (rest.BeforeCreate/Update).
const validateEventCreate = (e: Event, mode: EventValidationMode = 'events') => validateCreate(eventStrategyFor(mode), e);
const validateEventUpdate = (e: Event, old: Event, mode: EventValidationMode = 'events') => validateUpdate(eventStrategyFor(mode), e, old);

const T0 = '2024-01-01T00:00:00.000000Z';
const NAME_EMPTY = 'name part must be non-empty';
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** An old-style Event as kubelet writes it through core/v1 (stored form): no eventTime, deprecated fields set. */
function oldStyle(over: Partial<Event> = {}, meta: Partial<Event['metadata']> = {}): Event {
  return {
    metadata: { name: 'p.17a8', namespace: 'ns1', ...meta },
    eventTime: null,
    reason: 'Killing',
    regarding: { kind: 'Pod', namespace: 'ns1', name: 'p' },
    note: 'Stopping container',
    type: 'Normal',
    deprecatedSource: { component: 'kubelet', host: 'n1' },
    deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2024-01-01T00:00:00Z',
    deprecatedCount: 1,
    ...over,
  };
}
const texts = (errs: FieldError[]) => errs.map((e) => e.text());
const create = (over: Partial<Event> = {}, meta: Partial<Event['metadata']> = {}) => texts(validateEventCreate(oldStyle(over, meta), 'core'));

test('core: an old-style Event is valid (no eventTime, deprecated fields, any type, non-DNS name)', () => {
  assert.deepEqual(create(), []);
  assert.deepEqual(create({ type: 'Custom' }, { name: 'Pod.With_Caps' }), []);
  // the same object through events.cluster.io/v1 fails the strict rules
  assert.ok(texts(validateEventCreate(oldStyle(), 'events')).includes('eventTime: Required value'));
});

test('core: A1/A2 name involvedObject.namespace', () => {
  assert.deepEqual(create({ regarding: { kind: 'Pod', namespace: 'other', name: 'p' } }), [
    'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
  ]);
  assert.deepEqual(create({ regarding: { kind: 'Node', name: 'n' } }), ['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
  assert.deepEqual(create({ regarding: { kind: 'Node', name: 'n' } }, { namespace: 'default' }), []);
});

test('core: a new-style Event needs the reporting fields, named as core clients send them', () => {
  assert.deepEqual(create({ eventTime: T0, reason: '' }), [
    'reportingComponent: Required value',
    `reportingComponent: Invalid value: "": ${NAME_EMPTY}`,
    `reportingComponent: Invalid value: "": ${NAME_PART_MSG}`,
    'reportingInstance: Required value',
    'action: Required value',
    'reason: Required value',
  ]);
  const ok = { eventTime: T0, reportingController: 'kubelet', reportingInstance: 'n1', action: 'Kill' };
  assert.deepEqual(create(ok), []);
  assert.deepEqual(create({ ...ok, note: 'x'.repeat(1025) }), ['message: Invalid value: "": can have at most 1024 characters']);
  assert.deepEqual(create({ ...ok, regarding: { kind: 'Node', name: 'n' } }, { namespace: 'ns1' }), [
    'involvedObject.namespace: Invalid value: "": does not match event.namespace',
  ]);
});

test('core: generic metadata checks run only when the legacy checks pass', () => {
  assert.deepEqual(create({}, { name: 'a/b' }), ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
  assert.deepEqual(create({ regarding: { kind: 'Pod', namespace: 'other', name: 'p' } }, { name: 'a/b' }), [
    'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
  ]);
});

test('core update: no immutable fields and no series rules, but metadata and legacy checks stay', () => {
  const old = oldStyle({}, { uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' });
  const upd = (over: Partial<Event>, meta: Partial<Event['metadata']> = {}) =>
    texts(validateEventUpdate(oldStyle(over, { uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', ...meta }), old, 'core'));
  assert.deepEqual(upd({ note: 'changed', deprecatedCount: 2, reason: 'Other', series: { count: 1, lastObservedTime: null } }), []);
  assert.deepEqual(upd({}, { uid: 'u2' }), ['metadata.uid: Invalid value: "u2": field is immutable']);
  assert.deepEqual(upd({ regarding: { kind: 'Pod', namespace: 'other', name: 'p' } }), [
    'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
  ]);
  // through events.cluster.io/v1 the same changes are refused
  assert.ok(texts(validateEventUpdate(oldStyle({ note: 'changed' }, { uid: 'u1' }), old, 'events')).includes('note: Invalid value: "changed": field is immutable'));
});
