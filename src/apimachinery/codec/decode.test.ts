import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT, EVENT_LIST } from '../../apis/events/v1/schema.ts';
import { StatusError } from '../errors.ts';
import { convertValue, decodeBody, strictDecodingError } from './decode.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { encode } from './encode.ts';

const json = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const decode = (v: unknown) => decodeBody(json(v), 'application/json', EVENTS_DEFS, EVENT);
const yaml = (s: string) => decodeBody(Buffer.from(s), 'application/yaml', EVENTS_DEFS, EVENT);

/** Asserts a 400 BadRequest with exactly this message. */
function throws400(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.message, message);
    return true;
  });
}

const PREFIX = 'Event in version "v1" cannot be handled as a Event: ';

// Keys deliberately out of Go order, with sub-millisecond and offset timestamps.
const FULL = {
  note: 'Pulled image "nginx" <ok> & done',
  type: 'Normal',
  apiVersion: 'events.cluster.io/v1',
  kind: 'Event',
  regarding: { fieldPath: 'spec.containers{nginx}', apiVersion: 'v1', kind: 'Pod', uid: 'u-1', name: 'nginx', resourceVersion: '42', namespace: 'default' },
  metadata: {
    managedFields: [{ fieldsV1: { 'f:note': {} }, manager: 'kubectl', time: '2024-05-01T10:00:00.5Z', operation: 'Update', apiVersion: 'events.cluster.io/v1', fieldsType: 'FieldsV1' }],
    finalizers: ['a/b'],
    ownerReferences: [{ uid: 'o-1', name: 'rs', kind: 'ReplicaSet', apiVersion: 'apps/v1', controller: true }],
    annotations: { z: '1', a: '2' },
    labels: { tier: 'web', app: 'nginx' },
    creationTimestamp: '2024-05-01T12:00:00+02:00',
    generation: 3,
    resourceVersion: '7',
    uid: 'e-1',
    namespace: 'default',
    name: 'ev1',
  },
  eventTime: '2024-05-01T12:00:00.123+02:00',
  series: { lastObservedTime: '2024-05-01T10:00:01.123456789Z', count: 2 },
  reportingController: 'kubelet',
  reportingInstance: 'node-1',
  action: 'Pulling',
  reason: 'Pulled',
  related: { kind: 'Node', name: 'node-1' },
  deprecatedSource: { host: 'node-1', component: 'kubelet' },
  deprecatedFirstTimestamp: '2024-05-01T10:00:00.999Z',
  deprecatedLastTimestamp: '2024-05-01T10:00:01Z',
  deprecatedCount: 5,
};

const FULL_ENCODED =
  '{"kind":"Event","apiVersion":"events.cluster.io/v1",' +
  '"metadata":{"name":"ev1","namespace":"default","uid":"e-1","resourceVersion":"7","generation":3,' +
  '"creationTimestamp":"2024-05-01T10:00:00Z","labels":{"app":"nginx","tier":"web"},"annotations":{"a":"2","z":"1"},' +
  '"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"o-1","controller":true}],' +
  '"finalizers":["a/b"],' +
  '"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"events.cluster.io/v1","time":"2024-05-01T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:note":{}}}]},' +
  '"eventTime":"2024-05-01T10:00:00.123000Z","series":{"count":2,"lastObservedTime":"2024-05-01T10:00:01.123456Z"},' +
  '"reportingController":"kubelet","reportingInstance":"node-1","action":"Pulling","reason":"Pulled",' +
  '"regarding":{"kind":"Pod","namespace":"default","name":"nginx","uid":"u-1","apiVersion":"v1","resourceVersion":"42","fieldPath":"spec.containers{nginx}"},' +
  '"related":{"kind":"Node","name":"node-1"},"note":"Pulled image \\"nginx\\" \\u003cok\\u003e \\u0026 done","type":"Normal",' +
  '"deprecatedSource":{"component":"kubelet","host":"node-1"},' +
  '"deprecatedFirstTimestamp":"2024-05-01T10:00:00Z","deprecatedLastTimestamp":"2024-05-01T10:00:01Z","deprecatedCount":5}';

test('a full Event round-trips into Go key order with normalized times', () => {
  const r = decode(FULL);
  assert.deepEqual(r.problems, []);
  assert.equal(encode(r.object, EVENTS_DEFS, EVENT).toString(), FULL_ENCODED);
  // Decoding the encoded form again is a fixed point.
  const again = decodeBody(encode(r.object, EVENTS_DEFS, EVENT), 'application/json', EVENTS_DEFS, EVENT);
  assert.deepEqual(again.object, r.object);
  assert.deepEqual(Object.keys(r.object), Object.keys(JSON.parse(FULL_ENCODED)));
});

test('an empty body object gets the always-emitted fields', () => {
  const r = decode({});
  assert.deepEqual(r.object, {
    metadata: {},
    eventTime: null,
    regarding: {},
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  });
  assert.equal(
    encode(r.object, EVENTS_DEFS, EVENT).toString(),
    '{"metadata":{},"eventTime":null,"regarding":{},"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}',
  );
  assert.deepEqual(decode('null').object, r.object);
});

test('null and empty values are absent; null array and map elements become zero values', () => {
  const r = decode({
    metadata: { name: '', labels: {}, finalizers: [null], annotations: { a: null }, ownerReferences: [null] },
    note: null,
    series: null,
    deprecatedCount: 0,
    eventTime: null,
    related: {},
    reason: '',
  });
  assert.deepEqual(r.object.metadata, {
    annotations: { a: '' },
    ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }],
    finalizers: [''],
  });
  assert.deepEqual(r.object.related, {});
  for (const k of ['note', 'series', 'deprecatedCount', 'reason']) assert.equal(k in r.object, false, k);
  assert.equal(r.object.eventTime, null);
});

test('the zero time decodes as absent', () => {
  const r = decode({ eventTime: '0001-01-01T00:00:00Z', deprecatedFirstTimestamp: '0001-01-01T00:00:00.000Z' });
  assert.equal(r.object.eventTime, null);
  assert.equal(r.object.deprecatedFirstTimestamp, null);
});

test('unknown fields are dropped and reported with dotted paths and indices', () => {
  const r = decode({
    foo: 1,
    metadata: { name: 'a', foo: { deep: 1 }, ownerReferences: [{ uid: 'x' }, { uid: 'y', bogus: true }], managedFields: [{ fieldsV1: { 'f:any': { '.': {} } }, x: 1 }] },
    regarding: { bar: 'b' },
    series: { count: 2, extra: [] },
  });
  assert.deepEqual(r.problems, [
    'unknown field "foo"',
    'unknown field "metadata.foo"',
    'unknown field "metadata.ownerReferences[1].bogus"',
    'unknown field "metadata.managedFields[0].x"',
    'unknown field "regarding.bar"',
    'unknown field "series.extra"',
  ]);
  assert.deepEqual(r.strictProblems, r.problems);
  assert.equal('foo' in r.object, false);
  assert.deepEqual(r.object.regarding, {});
});

test('duplicate fields are reported in document order among unknown ones; the last value wins', () => {
  const body =
    '{"note":"a","foo":1,"note":"b","foo":2,"metadata":{"name":"x","labels":{"a":"1","a":"2"},"x":1,"name":"y"},' +
    '"metadata":{"name":"z"},"regarding":{"kind":"Pod","kind":"Node"}}';
  const r = decode(body);
  assert.deepEqual(r.problems, [
    'unknown field "foo"',
    'duplicate field "note"',
    'duplicate field "metadata"',
    'duplicate field "regarding.kind"',
  ]);
  assert.equal(r.object.note, 'b');
  assert.deepEqual(r.object.metadata, { name: 'z' });
  assert.deepEqual(r.object.regarding, { kind: 'Node' });

  const nested = decode('{"metadata":{"name":"x","labels":{"a":"1","a":"2"},"x":1,"name":"y","ownerReferences":[{"uid":"1","uid":"2"}]}}');
  assert.deepEqual(nested.problems, [
    'duplicate field "metadata.labels.a"',
    'unknown field "metadata.x"',
    'duplicate field "metadata.name"',
    'duplicate field "metadata.ownerReferences[0].uid"',
  ]);
  assert.deepEqual(nested.object.metadata, {
    name: 'y',
    labels: { a: '2' },
    ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '2' }],
  });
  // Escaped keys are compared after unescaping.
  assert.deepEqual(decode('{"note":"a","no\\u0074e":"b"}').problems, ['duplicate field "note"']);
  // Repeats inside opaque fieldsV1 are not checked, as upstream keeps it as raw bytes.
  assert.deepEqual(decode('{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{},"f:a":{}}}]}}').problems, []);
});

test('strict decoding error text', () => {
  const e = strictDecodingError('Event', 'v1', ['unknown field "foo"', 'duplicate field "note"']);
  assert.equal(e.code, 400);
  assert.equal(e.message, `${PREFIX}strict decoding error: unknown field "foo", duplicate field "note"`);
});

test('wrong JSON types give the encoding/json error', () => {
  throws400(() => decode({ metadata: { name: 5 } }), `${PREFIX}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string`);
  throws400(() => decode({ deprecatedCount: '1' }), `${PREFIX}json: cannot unmarshal string into Go struct field Event.deprecatedCount of type int32`);
  throws400(() => decode({ regarding: [] }), `${PREFIX}json: cannot unmarshal array into Go struct field Event.regarding of type v1.ObjectReference`);
  throws400(() => decode({ series: 'x' }), `${PREFIX}json: cannot unmarshal string into Go struct field Event.series of type v1.EventSeries`);
  throws400(() => decode({ metadata: { labels: { a: 1 } } }), `${PREFIX}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string`);
  throws400(() => decode({ metadata: { labels: [] } }), `${PREFIX}json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string`);
  throws400(() => decode({ metadata: { finalizers: 'a' } }), `${PREFIX}json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string`);
  throws400(() => decode({ metadata: { ownerReferences: ['x'] } }), `${PREFIX}json: cannot unmarshal string into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference`);
  throws400(
    () => decode({ metadata: { ownerReferences: [{ controller: 'yes' }] } }),
    `${PREFIX}json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool`,
  );
  throws400(() => decode({ eventTime: 5 }), `${PREFIX}json: cannot unmarshal number into Go struct field Event.eventTime of type string`);
  throws400(() => decode({ metadata: { creationTimestamp: {} } }), `${PREFIX}json: cannot unmarshal object into Go struct field ObjectMeta.metadata.creationTimestamp of type string`);
  // The first type error in document order is reported.
  throws400(() => decode('{"type":1,"note":2}'), `${PREFIX}json: cannot unmarshal number into Go struct field Event.type of type string`);
});

test('integers: non-integers and out-of-range values are rejected with their literal', () => {
  throws400(() => decode('{"deprecatedCount":1.5}'), `${PREFIX}json: cannot unmarshal number 1.5 into Go struct field Event.deprecatedCount of type int32`);
  throws400(() => decode('{"deprecatedCount":1.0}'), `${PREFIX}json: cannot unmarshal number 1.0 into Go struct field Event.deprecatedCount of type int32`);
  throws400(() => decode('{"deprecatedCount":1e2}'), `${PREFIX}json: cannot unmarshal number 1e2 into Go struct field Event.deprecatedCount of type int32`);
  throws400(() => decode('{"series":{"count":2147483648}}'), `${PREFIX}json: cannot unmarshal number 2147483648 into Go struct field EventSeries.series.count of type int32`);
  throws400(
    () => decode('{"metadata":{"generation":9223372036854775808}}'),
    `${PREFIX}json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64`,
  );
  assert.equal(decode('{"series":{"count":-2147483648}}').object.series && (decode('{"series":{"count":-2147483648}}').object.series as { count: number }).count, -2147483648);
  assert.equal((decode('{"metadata":{"generation":1234567890123}}').object.metadata as { generation: number }).generation, 1234567890123);
  // A float where the schema has no integer (unknown field) is fine.
  assert.deepEqual(decode('{"x":1.5}').problems, ['unknown field "x"']);
});

test('bad timestamps give the time.Parse error', () => {
  throws400(
    () => decode({ eventTime: '2024-05-01' }),
    `${PREFIX}parsing time "2024-05-01" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "" as "T"`,
  );
  throws400(() => decode({ deprecatedLastTimestamp: 'now' }), `${PREFIX}parsing time "now" as "2006-01-02T15:04:05Z07:00": cannot parse "now" as "2006"`);
  // A time error ends decoding at once, even after a saved type error.
  throws400(() => decode({ note: 1, eventTime: 'x' }), `${PREFIX}parsing time "x" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "x" as "2006"`);
});

test('malformed JSON is an unrecognized object with a Go syntax error and a summary', () => {
  throws400(
    () => decode('{"kind":"Event",'),
    `the object provided is unrecognized (must be of type Event): couldn't get version/kind; json parse error: unexpected end of JSON input ({"kind":"Event",)`,
  );
  throws400(
    () => decode('xyz'),
    `the object provided is unrecognized (must be of type Event): couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value (78797a)`,
  );
  throws400(
    () => decode('{"metadata":{"name":"abcdefghijklmnopqrstuvwxyz"}} x'),
    `the object provided is unrecognized (must be of type Event): couldn't get version/kind; json parse error: invalid character 'x' after top-level value ({"metadata":{"name":"abcdefghi ...)`,
  );
  throws400(() => decode(''), `the object provided is unrecognized (must be of type Event): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)`);
  throws400(
    () => decode({ kind: 5 }),
    `the object provided is unrecognized (must be of type Event): couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5})`,
  );
  throws400(
    () => decode([]),
    `the object provided is unrecognized (must be of type Event): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b5d)`,
  );
});

test('nesting deeper than 100 is rejected with exceeded max depth (nesting.ts)', () => {
  const deep = `{"metadata":{"foo":${'['.repeat(99)}${']'.repeat(99)}}}`;
  assert.throws(() => decode(deep), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message.includes("json parse error: invalid character '[' exceeded max depth of 100"));
  const ok = `{"metadata":{"foo":${'['.repeat(98)}${']'.repeat(98)}}}`;
  assert.deepEqual(decode(ok).problems, ['unknown field "metadata.foo"']);
});

test('kind and apiVersion are kept as given; __proto__ keys stay data', () => {
  const r = decode('{"kind":"Other","apiVersion":"x/v9","metadata":{"labels":{"__proto__":"v"}}}');
  assert.equal(r.object.kind, 'Other');
  assert.equal(r.object.apiVersion, 'x/v9');
  const labels = (r.object.metadata as { labels: Record<string, string> }).labels;
  assert.equal(Object.getPrototypeOf(labels), Object.prototype);
  assert.deepEqual(Object.keys(labels), ['__proto__']);
});

test('YAML bodies: values, unknown fields and go-yaml duplicate-key texts', () => {
  const r = yaml(
    [
      'apiVersion: events.cluster.io/v1',
      'kind: Event',
      'metadata:',
      '  name: e1',
      '  labels:',
      '    on: "yes"',
      '  bogus: 1',
      'note: first',
      'eventTime: 2024-05-01T10:00:00.5+02:00',
      'note: second',
      'regarding:',
      '  kind: Pod',
      '  kind: Node',
      '',
    ].join('\n'),
  );
  assert.equal(r.object.note, 'second');
  assert.equal(r.object.eventTime, '2024-05-01T08:00:00.500000Z');
  assert.deepEqual(r.object.metadata, { name: 'e1', labels: { true: 'yes' } });
  assert.deepEqual(r.object.regarding, { kind: 'Node' });
  assert.deepEqual(r.problems, ['unknown field "metadata.bogus"', 'line 10: key "note" already set in map', 'line 13: key "kind" already set in map']);
  assert.deepEqual(r.strictProblems, [
    'unknown field "metadata.bogus"',
    'yaml: unmarshal errors:\n  line 10: key "note" already set in map\n  line 13: key "kind" already set in map',
  ]);
  assert.deepEqual(yaml('note: x\n').problems, []);
  // go-yaml scalars: `e1` stays a string, `1e3` is a number.
  assert.equal(yaml('note: e1\n').object.note, 'e1');
  assert.equal(yaml('deprecatedCount: 1e3\n').object.deprecatedCount, 1000);
});

test('YAML syntax and type errors', () => {
  assert.throws(() => yaml('a: [1, 2\n'), (e: unknown) => e instanceof StatusError && e.code === 400 && /^the object provided is unrecognized \(must be of type Event\): yaml: line \d+: /.test(e.message));
  throws400(() => yaml('deprecatedCount: abc\n'), `${PREFIX}json: cannot unmarshal string into Go struct field Event.deprecatedCount of type int32`);
  assert.deepEqual(yaml('').object.metadata, {});
});

test('convertValue: canonical object and unknown fields from parsed values; lists', () => {
  const r = convertValue({ note: 'n', zzz: 1, metadata: { name: 'a' } }, EVENTS_DEFS, EVENT);
  assert.deepEqual(r.problems, ['unknown field "zzz"']);
  assert.deepEqual(Object.keys(r.object), ['metadata', 'eventTime', 'regarding', 'note', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp']);
  throws400(() => convertValue({ note: 1.5 }, EVENTS_DEFS, EVENT), `${PREFIX}json: cannot unmarshal number into Go struct field Event.note of type string`);
  throws400(() => convertValue({ deprecatedCount: 1.5 }, EVENTS_DEFS, EVENT), `${PREFIX}json: cannot unmarshal number 1.5 into Go struct field Event.deprecatedCount of type int32`);
  const list = convertValue({ kind: 'EventList', items: [{ note: 'x' }] }, EVENTS_DEFS, EVENT_LIST);
  assert.deepEqual(Object.keys(list.object), ['kind', 'metadata', 'items']);
  assert.throws(() => convertValue({ items: 'x' }, EVENTS_DEFS, EVENT_LIST), {
    message: 'EventList in version "v1" cannot be handled as a EventList: json: cannot unmarshal string into Go struct field EventList.items of type []v1.Event',
  });
});
