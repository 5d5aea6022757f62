import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT, EVENT_LIST } from '../../apis/events/v1/schema.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { canonicalize, encode, goJSON, prettyJSON, toYAML } from './encode.ts';

const enc = (o: object, def = EVENT): string => encode(o, EVENTS_DEFS, def).toString();

test('encode writes Go struct order for Event, ObjectMeta and ObjectReference, without a trailing newline', () => {
  const out = enc({
    deprecatedCount: 1,
    note: 'n',
    regarding: { fieldPath: 'f', resourceVersion: '1', apiVersion: 'v1', uid: 'u', name: 'p', namespace: 'ns', kind: 'Pod' },
    metadata: {
      managedFields: [{ subresource: 's', fieldsV1: {}, fieldsType: 'FieldsV1', time: '2024-01-01T00:00:00Z', apiVersion: 'v1', operation: 'Apply', manager: 'm' }],
      finalizers: ['f'],
      ownerReferences: [{ blockOwnerDeletion: true, controller: true, uid: 'o', name: 'n', kind: 'K', apiVersion: 'v' }],
      annotations: { a: 'b' },
      labels: { l: 'v' },
      deletionGracePeriodSeconds: 30,
      deletionTimestamp: '2024-01-01T00:00:01Z',
      creationTimestamp: '2024-01-01T00:00:00Z',
      generation: 2,
      resourceVersion: '5',
      uid: 'id',
      selfLink: '/x',
      namespace: 'ns',
      generateName: 'g-',
      name: 'n1',
    },
    type: 'Normal',
    kind: 'Event',
    apiVersion: 'events.cluster.io/v1',
  });
  assert.equal(
    out,
    '{"kind":"Event","apiVersion":"events.cluster.io/v1","metadata":{"name":"n1","generateName":"g-","namespace":"ns","selfLink":"/x","uid":"id",' +
      '"resourceVersion":"5","generation":2,"creationTimestamp":"2024-01-01T00:00:00Z","deletionTimestamp":"2024-01-01T00:00:01Z",' +
      '"deletionGracePeriodSeconds":30,"labels":{"l":"v"},"annotations":{"a":"b"},' +
      '"ownerReferences":[{"apiVersion":"v","kind":"K","name":"n","uid":"o","controller":true,"blockOwnerDeletion":true}],"finalizers":["f"],' +
      '"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","time":"2024-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{},"subresource":"s"}]},' +
      '"eventTime":null,"regarding":{"kind":"Pod","namespace":"ns","name":"p","uid":"u","apiVersion":"v1","resourceVersion":"1","fieldPath":"f"},' +
      '"note":"n","type":"Normal","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null,"deprecatedCount":1}',
  );
});

test('omitempty drops empty values; always-emitted and required fields stay', () => {
  const out = enc({
    metadata: { name: '', labels: {}, finalizers: [], generation: 0, deletionTimestamp: null, creationTimestamp: null, ownerReferences: [{ uid: 'u' }] },
    eventTime: null,
    series: { count: 0 },
    note: '',
    deprecatedCount: 0,
    unknownField: 'dropped',
  });
  assert.equal(
    out,
    '{"metadata":{"ownerReferences":[{"apiVersion":"","kind":"","name":"","uid":"u"}]},"eventTime":null,"series":{"count":0,"lastObservedTime":null},' +
      '"regarding":{},"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}',
  );
});

test('EventList always has metadata and items', () => {
  assert.equal(enc({ kind: 'EventList', apiVersion: 'events.cluster.io/v1' }, EVENT_LIST), '{"kind":"EventList","apiVersion":"events.cluster.io/v1","metadata":{},"items":[]}');
  assert.equal(
    enc({ items: [{ note: 'a' }], metadata: { resourceVersion: '9', continue: '' } }, EVENT_LIST),
    '{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{},"eventTime":null,"regarding":{},"note":"a","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}]}',
  );
});

test('map keys are sorted as Go sorts them, including integer-like keys', () => {
  const out = enc({ metadata: { labels: { b: '1', '10': 'x', a: '2', '2': 'y' }, annotations: { z: '<', y: '>' } } });
  assert.ok(out.startsWith('{"metadata":{"labels":{"10":"x","2":"y","a":"2","b":"1"},"annotations":{"y":"\\u003e","z":"\\u003c"}},'), out);
  assert.deepEqual(Object.keys((canonicalize({ metadata: { labels: { b: '', a: '' } } }, EVENTS_DEFS, EVENT).metadata as { labels: object }).labels), ['a', 'b']);
});

test('Go escaping of <, >, &, U+2028, U+2029 and control characters', () => {
  const s = 'a<b>c&d\u2028e\u2029f\u0001\b\f\n\t"\\\u007f é 😀';
  const expected = '"a\\u003cb\\u003ec\\u0026d\\u2028e\\u2029f\\u0001\\b\\f\\n\\t\\"\\\\\u007f é 😀"';
  assert.equal(goJSON(s), expected);
  assert.ok(enc({ note: s }).includes(`"note":${expected}`));
  assert.equal(goJSON({ k: '<' }), '{"k":"\\u003c"}');
});

test('prettyJSON indents by two spaces with no trailing newline', () => {
  assert.equal(prettyJSON({ a: [1, { b: '&' }], e: {}, l: [] }), '{\n  "a": [\n    1,\n    {\n      "b": "\\u0026"\n    }\n  ],\n  "e": {},\n  "l": []\n}');
});

test('toYAML sorts keys and quotes ambiguous strings like go-yaml', () => {
  const y = toYAML({
    kind: 'Event',
    metadata: { name: 'e', labels: { b: 'yes', a: '123' }, creationTimestamp: '2024-01-01T00:00:00Z' },
    eventTime: null,
    items: ['x', 'y'],
    note: 'two\nlines',
    empty: '',
    regarding: {},
  });
  assert.equal(
    y,
    [
      'empty: ""',
      'eventTime: null',
      'items:',
      '- x',
      '- "y"',
      'kind: Event',
      'metadata:',
      '  creationTimestamp: "2024-01-01T00:00:00Z"',
      '  labels:',
      '    a: "123"',
      '    b: "yes"',
      '  name: e',
      'note: |-',
      '  two',
      '  lines',
      'regarding: {}',
      '',
    ].join('\n'),
  );
});

test('encode escapes each HTML-unsafe character alone, and leaves other 0xE2-led characters as UTF-8', () => {
  const note = (s: string) => encode({ note: s }, EVENTS_DEFS, EVENT).toString('utf8');
  const cases: [string, string][] = [
    ['plain', '"plain"'],
    ['a<b', '"a\\u003cb"'],
    ['a>b', '"a\\u003eb"'],
    ['a&b', '"a\\u0026b"'],
    ['a\u2028b', '"a\\u2028b"'],
    ['a\u2029b', '"a\\u2029b"'],
    ['€ “quoted” …', '"€ “quoted” …"'],
    ['€<', '"€\\u003c"'],
  ];
  for (const [input, json] of cases) assert.ok(note(input).includes(`,"note":${json},`), input);
});

test('a Go pointer number keeps its 0 (ObjectMeta.deletionGracePeriodSeconds); plain numbers drop it (generation)', () => {
  const out = encode({ kind: 'Event', apiVersion: 'events.cluster.io/v1', metadata: { name: 'a', generation: 0, deletionGracePeriodSeconds: 0 } }, EVENTS_DEFS, EVENT).toString();
  assert.match(out, /"metadata":\{"name":"a","deletionGracePeriodSeconds":0\}/);
});
