import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isLabelValue,
  isPathSegmentName,
  isPathSegmentPrefix,
  isQualifiedName,
  nameIsDNSSubdomain,
  nameIsPathSegment,
} from './content.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

test('DNS-1123 subdomain: valid, bad characters, too long (bytes)', () => {
  assert.deepEqual(isDNS1123Subdomain('a.b-c.d0'), []);
  assert.deepEqual(isDNS1123Subdomain('Ab'), [SUBDOMAIN_MSG]);
  assert.deepEqual(isDNS1123Subdomain(''), [SUBDOMAIN_MSG]);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(253)), []);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 bytes']);
  assert.deepEqual(isDNS1123Subdomain('a\n'), [SUBDOMAIN_MSG], 'no trailing-newline loophole');
});

test('DNS-1123 label: dots get their own message', () => {
  assert.deepEqual(isDNS1123Label('my-ns'), []);
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(isDNS1123Label('A'), [LABEL_MSG]);
  assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 bytes']);
});

test('qualified names: prefix, name part, too many slashes', () => {
  assert.deepEqual(isQualifiedName('example.com/My_Name.1'), []);
  assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('Bad/a'), [`prefix part ${SUBDOMAIN_MSG}`]);
  assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 bytes']);
  assert.deepEqual(isQualifiedName('-a'), [NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('a/b/c'), [
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ]);
});

test('label values: empty allowed, 63 bytes max', () => {
  assert.deepEqual(isLabelValue(''), []);
  assert.deepEqual(isLabelValue('a-b_c.d'), []);
  assert.deepEqual(isLabelValue('é'), [LABEL_VALUE_MSG]);
  assert.deepEqual(isLabelValue('a'.repeat(64)), ['must be no more than 63 bytes']);
});

test('path segments', () => {
  assert.deepEqual(isPathSegmentName('.'), ["may not be '.'"]);
  assert.deepEqual(isPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(isPathSegmentPrefix('..'), []);
  assert.deepEqual(nameIsPathSegment('..', true), []);
  assert.deepEqual(nameIsPathSegment('..', false), ["may not be '..'"]);
});

test('generateName prefixes: trailing dash masked the upstream way', () => {
  assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
  assert.deepEqual(nameIsDNSSubdomain('-', true), [SUBDOMAIN_MSG], 'a single dash is not masked');
  assert.deepEqual(nameIsDNSSubdomain('a.-', true), [], 'upstream drops the last two characters: checks "aa"');
  assert.deepEqual(nameIsDNSSubdomain('aé-', true), [SUBDOMAIN_MSG], 'a cut multi-byte character still fails');
  assert.deepEqual(nameIsDNSSubdomain('web-', false), [SUBDOMAIN_MSG]);
});
