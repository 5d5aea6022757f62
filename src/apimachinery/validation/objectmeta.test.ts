import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ObjectMeta } from '../../apis/meta/v1/types.ts';
import type { FieldError } from '../field.ts';
import { nameIsDNSSubdomain, nameIsPathSegment } from './content.ts';
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from './core.ts';
import { validateFieldManager, validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.ts';

const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const texts = (errs: FieldError[]) => errs.map((e) => e.text());
const meta = (m: Partial<ObjectMeta> = {}): ObjectMeta => ({ name: 'x', namespace: 'ns', ...m });
const create = (m: Partial<ObjectMeta>) => texts(validateCoreObjectMeta(meta(m), true, nameIsDNSSubdomain));

test('valid metadata has no errors', () => {
  assert.deepEqual(create({ labels: { 'app.kubernetes.io/name': 'web', empty: '' }, finalizers: ['example.com/f', 'orphan'] }), []);
});

test('name and namespace', () => {
  assert.deepEqual(create({ name: '' }), ['metadata.name: Required value: name or generateName is required']);
  assert.deepEqual(create({ namespace: '' }), ['metadata.namespace: Required value']);
  assert.deepEqual(create({ namespace: 'a.b' }), ['metadata.namespace: Invalid value: "a.b": must not contain dots']);
  assert.deepEqual(texts(validateObjectMeta(meta({ name: '..' }), true, nameIsPathSegment)), [
    `metadata.name: Invalid value: "..": may not be '..'`,
  ]);
  assert.deepEqual(texts(validateObjectMeta(meta({ namespace: 'x' }), false, nameIsPathSegment)), [
    'metadata.namespace: Forbidden: not allowed on this type',
  ]);
});

test('generation must not be negative', () => {
  assert.deepEqual(create({ generation: -1 }), ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
});

test('labels: key and value', () => {
  assert.deepEqual(create({ labels: { 'bad key': 'v', ok: 'a'.repeat(64) } }), [
    `metadata.labels: Invalid value: "bad key": ${NAME_PART_MSG}`,
    `metadata.labels: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes`,
  ]);
});

test('annotations: case-insensitive keys, 262144-byte total counted in UTF-8 bytes', () => {
  assert.deepEqual(create({ annotations: { 'Example.COM/Key': 'v' } }), []);
  assert.deepEqual(create({ annotations: { a: 'x'.repeat(262143) } }), []);
  assert.deepEqual(create({ annotations: { a: 'é'.repeat(131072) } }), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
  assert.deepEqual(create({ annotations: { 'a b': '' } }), [`metadata.annotations: Invalid value: "a b": ${NAME_PART_MSG}`]);
});

test('owner references', () => {
  assert.deepEqual(create({ ownerReferences: [{} as never] }), [
    'metadata.ownerReferences[0].apiVersion: Required value: must not be empty',
    'metadata.ownerReferences[0].kind: Required value: must not be empty',
    'metadata.ownerReferences[0].name: Required value: must not be empty',
    'metadata.ownerReferences[0].uid: Required value: must not be empty',
  ]);
  assert.deepEqual(create({ ownerReferences: [{ apiVersion: 'a/b/c', kind: 'K', name: 'n', uid: 'u' }] }), [
    'metadata.ownerReferences[0].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>',
  ]);
  assert.deepEqual(create({ ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }), [
    'metadata.ownerReferences[0]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner',
  ]);
  const two = [
    { apiVersion: 'v1', kind: 'Pod', name: 'a', uid: '1', controller: true },
    { apiVersion: 'v1', kind: 'Pod', name: 'b', uid: '2', controller: true },
  ];
  assert.deepEqual(create({ ownerReferences: two }), [
    'metadata.ownerReferences: Invalid value: [{"apiVersion":"v1","kind":"Pod","name":"a","uid":"1","controller":true},{"apiVersion":"v1","kind":"Pod","name":"b","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for Pod/a and Pod/b',
  ]);
});

test('finalizers: qualified names, standard names, orphan with foreground', () => {
  assert.deepEqual(create({ finalizers: ['foo'] }), [
    'metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
  ]);
  assert.deepEqual(create({ finalizers: ['orphan', 'foregroundDeletion'] }), [
    'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
  ]);
  assert.deepEqual(create({ finalizers: ['example.com/a b'] }), [`metadata.finalizers: Invalid value: "example.com/a b": ${NAME_PART_MSG}`]);
});

test('managed fields', () => {
  assert.deepEqual(create({ managedFields: [{ manager: 'm', operation: 'Foo' as never, fieldsType: 'FieldsV2' }] }), [
    'metadata.managedFields[0].operation: Unsupported value: "Foo": supported values: "Apply", "Update"',
    'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
  ]);
  assert.deepEqual(create({ managedFields: [{ manager: 'm' }] }), ['metadata.managedFields[0].operation: Required value: must not be empty']);
  assert.deepEqual(texts(validateFieldManager('é\u0007', 'fieldManager')), [
    'fieldManager: Invalid value: "é\\a": invalid character U+0007 (at position 2)',
  ]);
  assert.deepEqual(texts(validateFieldManager('m'.repeat(129), 'fieldManager')), ['fieldManager: Too long: may not be more than 128 bytes']);
});

test('update: immutable identity fields, generation, finalizers while deleting', () => {
  const old = meta({ uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2 });
  assert.deepEqual(texts(validateObjectMetaUpdate({ ...old }, old)), []);
  assert.deepEqual(
    texts(validateObjectMetaUpdate({ ...old, name: 'y', namespace: 'z', uid: 'u2', creationTimestamp: null, generation: 1 }, old)),
    [
      'metadata.generation: Invalid value: 1: must not be decremented',
      'metadata.name: Invalid value: "y": field is immutable',
      'metadata.namespace: Invalid value: "z": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: null: field is immutable',
    ],
  );
  assert.deepEqual(texts(validateObjectMetaUpdate({ ...old, deletionGracePeriodSeconds: 30 }, old)), [
    'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
  ]);
  const deleting = { ...old, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['example.com/a'] };
  assert.deepEqual(texts(validateCoreObjectMetaUpdate({ ...deleting, finalizers: ['example.com/a', 'example.com/c', 'example.com/b'] }, deleting)), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/c"}',
  ]);
  assert.deepEqual(texts(validateCoreObjectMetaUpdate({ ...old, finalizers: ['bar'] }, old)), [
    'metadata.finalizers[0]: Invalid value: "bar": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});
