import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../apis/events/v1/types.ts';
import { newInvalid } from '../../apimachinery/errors.ts';
import type { FieldError } from '../../apimachinery/field.ts';
import { validateCreate, validateUpdate } from '../rest/validate.ts';
import { eventStrategyFor } from './strategy.ts';
import type { EventValidationMode } from './validation.ts';

// What the store checks of an Event: the strategy's rules with the common ObjectMeta rules (rest.BeforeCreate/Update).
const validateEventCreate = (e: Event, mode: EventValidationMode = 'events') => validateCreate(eventStrategyFor(mode), e);
const validateEventUpdate = (e: Event, old: Event, mode: EventValidationMode = 'events') => validateUpdate(eventStrategyFor(mode), e, old);

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const T0 = '2024-01-01T00:00:00.000000Z';

function ev(over: Partial<Event> = {}, meta: Partial<Event['metadata']> = {}): Event {
  return {
    metadata: { name: 'x', namespace: 'default', ...meta },
    eventTime: T0,
    reportingController: 'example.com/controller',
    reportingInstance: 'controller-1',
    action: 'Scheduling',
    reason: 'Scheduled',
    regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
    note: 'assigned',
    type: 'Normal',
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
    ...over,
  };
}
const texts = (errs: FieldError[]) => errs.map((e) => e.text());
const create = (over: Partial<Event> = {}, meta: Partial<Event['metadata']> = {}) => texts(validateEventCreate(ev(over, meta)));
const message = (e: Event, errs: FieldError[]) => newInvalid({ group: '', kind: 'Event' }, e.metadata.name ?? '', errs).message;

test('a complete new-style Event is valid', () => {
  assert.deepEqual(create(), []);
  assert.deepEqual(create({ series: { count: 2, lastObservedTime: T0 } }), []);
});

test('A1: old-style Event about a cluster-scoped object must live in "" or default', () => {
  const regarding = { kind: 'Node', name: 'n' };
  assert.deepEqual(create({ eventTime: null, regarding }, { namespace: 'ns1' }), [
    'regarding.namespace: Invalid value: "": does not match event.namespace',
    'eventTime: Required value',
  ]);
  assert.deepEqual(create({ eventTime: null, regarding }), ['eventTime: Required value']);
});

test('A2: old-style Event must live in its object namespace', () => {
  assert.deepEqual(create({ eventTime: null, regarding: { kind: 'Pod', namespace: 'other', name: 'p' } }), [
    'regarding.namespace: Invalid value: "other": does not match event.namespace',
    'eventTime: Required value',
  ]);
});

test('A3: new-style Event about a cluster-scoped object: default, core-system or kube-system (decision 6)', () => {
  const regarding = { kind: 'Node', name: 'n' };
  for (const namespace of ['default', 'core-system', 'kube-system']) assert.deepEqual(create({ regarding }, { namespace }), [], namespace);
  assert.deepEqual(create({ regarding }, { namespace: 'ns1' }), ['regarding.namespace: Invalid value: "": does not match event.namespace']);
});

test('A4/A5: reportingController required and a qualified name', () => {
  assert.deepEqual(create({ reportingController: '' }), [
    'reportingController: Required value',
    'reportingController: Invalid value: "": name part must be non-empty',
    `reportingController: Invalid value: "": ${NAME_PART_MSG}`,
  ]);
  assert.deepEqual(create({ reportingController: 'Bad Controller' }), [`reportingController: Invalid value: "Bad Controller": ${NAME_PART_MSG}`]);
});

test('A6/A7: reportingInstance required, at most 128 bytes', () => {
  assert.deepEqual(create({ reportingInstance: '' }), ['reportingInstance: Required value']);
  assert.deepEqual(create({ reportingInstance: 'i'.repeat(128) }), []);
  // 65 characters but 130 bytes: lengths are UTF-8 bytes
  assert.deepEqual(create({ reportingInstance: 'é'.repeat(65) }), ['reportingInstance: Invalid value: "": can have at most 128 characters']);
});

test('A8: action required, at most 128 bytes', () => {
  assert.deepEqual(create({ action: undefined }), ['action: Required value']);
  assert.deepEqual(create({ action: 'a'.repeat(129) }), ['action: Invalid value: "": can have at most 128 characters']);
});

test('A9: reason required, at most 128 bytes', () => {
  assert.deepEqual(create({ reason: '' }), ['reason: Required value']);
  assert.deepEqual(create({ reason: 'r'.repeat(129) }), ['reason: Invalid value: "": can have at most 128 characters']);
});

test('A10: note at most 1024 bytes', () => {
  assert.deepEqual(create({ note: 'n'.repeat(1024) }), []);
  assert.deepEqual(create({ note: 'n'.repeat(1025) }), ['note: Invalid value: "": can have at most 1024 characters']);
});

test('A4-A10 are skipped for old-style Events', () => {
  assert.deepEqual(create({ eventTime: null, reportingController: '', action: '', reason: '', reportingInstance: '', note: 'n'.repeat(2000) }), [
    'eventTime: Required value',
  ]);
});

test('A11: namespace must be a DNS subdomain (path `namespace`), then the metadata rule', () => {
  assert.deepEqual(create({ regarding: { kind: 'Pod', namespace: 'Bad_NS', name: 'p' } }, { namespace: 'Bad_NS' }), [
    `namespace: Invalid value: "Bad_NS": ${SUBDOMAIN_MSG}`,
    "metadata.namespace: Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

test('B1: ObjectMeta rules (name is a DNS subdomain, generateName prefix, labels, finalizers)', () => {
  assert.deepEqual(create({}, { name: '' }), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(create({}, { name: 'Bad' }), [`metadata.name: Invalid value: "Bad": ${SUBDOMAIN_MSG}`]);
  assert.deepEqual(create({}, { name: 'web-abcde', generateName: 'web-' }), []);
  assert.deepEqual(create({}, { name: 'Web-abcde', generateName: 'Web-' }), [
    `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`,
    `metadata.name: Invalid value: "Web-abcde": ${SUBDOMAIN_MSG}`,
  ]);
  assert.deepEqual(create({}, { labels: { 'a/b/c': 'v' } }).length, 1);
  assert.deepEqual(create({}, { finalizers: ['foo'] }), [
    'metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});

test('B2/B3: series needs count >= 2 and lastObservedTime', () => {
  const e = ev({ series: { count: 1, lastObservedTime: T0 } });
  assert.deepEqual(texts(validateEventCreate(e)), ['series.count: Invalid value: "": should be at least 2']);
  assert.equal(message(e, validateEventCreate(e)), 'Event "x" is invalid: series.count: Invalid value: "": should be at least 2');
  assert.deepEqual(create({ series: { count: 2, lastObservedTime: null } }), ['series.lastObservedTime: Required value']);
});

test('B4: eventTime required', () => {
  assert.deepEqual(create({ eventTime: null }), ['eventTime: Required value']);
});

test('B5: type must be Normal or Warning; the bad value is always ""', () => {
  assert.deepEqual(create({ type: 'Warning' }), []);
  assert.deepEqual(create({ type: '' }), ['type: Invalid value: "": has invalid value: ']);
  assert.deepEqual(create({ type: 'normal' }), ['type: Invalid value: "": has invalid value: normal']);
});

test('B6-B9: deprecated fields must be unset', () => {
  assert.deepEqual(create({ deprecatedFirstTimestamp: '2024-01-01T00:00:00Z' }), ['deprecatedFirstTimestamp: Invalid value: "": needs to be unset']);
  assert.deepEqual(create({ deprecatedLastTimestamp: '2024-01-01T00:00:00Z' }), ['deprecatedLastTimestamp: Invalid value: "": needs to be unset']);
  assert.deepEqual(create({ deprecatedCount: 3 }), ['deprecatedCount: Invalid value: "": needs to be unset']);
  assert.deepEqual(create({ deprecatedSource: { host: 'node-1' } }), ['deprecatedSource: Invalid value: "": needs to be unset']);
  assert.deepEqual(create({ deprecatedSource: { component: 'kubelet' } }), ['deprecatedSource: Invalid value: "": needs to be unset']);
});

test('create: several errors aggregate in emission order', () => {
  const e = ev({ action: '', type: '', deprecatedCount: 1 });
  const errs = validateEventCreate(e);
  assert.equal(
    message(e, errs),
    'Event "x" is invalid: [action: Required value, type: Invalid value: "": has invalid value: , deprecatedCount: Invalid value: "": needs to be unset]',
  );
  const st = newInvalid({ group: '', kind: 'Event' }, 'x', errs).toStatus();
  assert.deepEqual(st.details?.causes?.[0], { reason: 'FieldValueRequired', message: 'Required value', field: 'action' });
});

const stored = () => ev({ series: { count: 2, lastObservedTime: T0 } }, { uid: 'u1', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z' });
const update = (over: Partial<Event> = {}, meta: Partial<Event['metadata']> = {}) => {
  const old = stored();
  const next = { ...old, ...over, metadata: { ...old.metadata, ...meta } };
  return texts(validateEventUpdate(next, old));
};

test('update: an unchanged Event and a new series are fine', () => {
  assert.deepEqual(update(), []);
  assert.deepEqual(update({ series: { count: 5, lastObservedTime: '2024-01-01T00:10:00.000000Z' } }), []);
  assert.deepEqual(update({}, { labels: { a: 'b' }, annotations: { c: 'd' } }), [], 'labels and annotations are mutable');
});

test('update: series may be removed; it is validated only when it changed', () => {
  assert.deepEqual(update({ series: undefined }), []);
  assert.deepEqual(update({ series: { count: 1, lastObservedTime: T0 } }), ['series.count: Invalid value: "": should be at least 2']);
  assert.deepEqual(update({ series: { count: 3, lastObservedTime: null } }), ['series.lastObservedTime: Required value']);
  const old = ev({ series: { count: 1, lastObservedTime: T0 } });
  assert.deepEqual(texts(validateEventUpdate({ ...old }, old)), [], 'an unchanged bad series is not re-checked');
});

test('update: reason is checked twice; the message shows it once', () => {
  const old = stored();
  const next = { ...old, reason: 'Other' };
  const errs = validateEventUpdate(next, old);
  assert.deepEqual(texts(errs), ['reason: Invalid value: "Other": field is immutable', 'reason: Invalid value: "Other": field is immutable']);
  const err = newInvalid({ group: '', kind: 'Event' }, 'x', errs);
  assert.equal(err.message, 'Event "x" is invalid: reason: Invalid value: "Other": field is immutable');
  assert.equal(err.details?.causes?.length, 2);
});

test('update: immutable fields render the new value as upstream (internal structs with Go field names)', () => {
  assert.deepEqual(update({ regarding: { kind: 'Pod', namespace: 'default', name: 'q' } }), [
    'regarding: Invalid value: {"Kind":"Pod","Namespace":"default","Name":"q","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable',
  ]);
  assert.deepEqual(update({ note: 'changed' }), ['note: Invalid value: "changed": field is immutable']);
  assert.deepEqual(update({ deprecatedSource: { component: 'c' } }), ['deprecatedSource: Invalid value: {"Component":"c","Host":""}: field is immutable']);
  assert.deepEqual(update({ deprecatedFirstTimestamp: '2024-01-01T00:00:00Z' }), [
    'deprecatedFirstTimestamp: Invalid value: "2024-01-01T00:00:00Z": field is immutable',
  ]);
  assert.deepEqual(update({ deprecatedLastTimestamp: '2024-01-01T00:00:00Z' }), [
    'deprecatedLastTimestamp: Invalid value: "2024-01-01T00:00:00Z": field is immutable',
  ]);
  assert.deepEqual(update({ deprecatedCount: 3 }), ['deprecatedCount: Invalid value: 3: field is immutable']);
  assert.deepEqual(update({ type: 'Warning' }), ['type: Invalid value: "Warning": field is immutable']);
  assert.deepEqual(update({ eventTime: '2024-01-01T00:00:00.000001Z' }), ['eventTime: Invalid value: "2024-01-01T00:00:00.000001Z": field is immutable']);
  assert.deepEqual(update({ action: 'Other' }), ['action: Invalid value: "Other": field is immutable']);
  assert.deepEqual(update({ related: { kind: 'Node', name: 'n' } }), [
    'related: Invalid value: {"Kind":"Node","Namespace":"","Name":"n","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable',
  ]);
  assert.deepEqual(update({ reportingController: 'example.com/other' }), ['reportingController: Invalid value: "example.com/other": field is immutable']);
  assert.deepEqual(update({ reportingInstance: 'controller-2' }), ['reportingInstance: Invalid value: "controller-2": field is immutable']);
  const old = ev({ related: { kind: 'Node', name: 'n' } });
  assert.deepEqual(texts(validateEventUpdate({ ...old, related: undefined }, old)), ['related: Invalid value: null: field is immutable']);
});

test('update: metadata rules (immutable identity, generation) and part A on the new object', () => {
  assert.deepEqual(update({}, { name: 'y' }), ['metadata.name: Invalid value: "y": field is immutable', 'metadata.name: Invalid value: "y": field is immutable']);
  assert.deepEqual(update({}, { uid: 'u2' }), ['metadata.uid: Invalid value: "u2": field is immutable', 'metadata.uid: Invalid value: "u2": field is immutable']);
  const neg = 'metadata.generation: Invalid value: -1: must be greater than or equal to 0';
  const dec = 'metadata.generation: Invalid value: -1: must not be decremented';
  assert.deepEqual(update({}, { generation: -1 }), [neg, neg, dec, neg, dec]);
  assert.deepEqual(update({ reportingInstance: '' }), [
    'reportingInstance: Required value',
    'reportingInstance: Invalid value: "": field is immutable',
  ]);
});

test('update: a bad label appears in three causes (generic create + update rules, strategy update) and once in the message', () => {
  const old = stored();
  const next = { ...old, metadata: { ...old.metadata, labels: { 'bad key': 'v' } } };
  const errs = validateEventUpdate(next, old);
  assert.equal(errs.length, 3);
  assert.equal(message(next, errs), `Event "x" is invalid: metadata.labels: Invalid value: "bad key": ${NAME_PART_MSG}`);
});
