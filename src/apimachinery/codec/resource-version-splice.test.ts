import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EVENT } from '../../apis/events/v1/schema.ts';
import { EVENTS_DEFS } from '../../apis/events/v1/definitions.ts';
import { encode } from './encode.ts';
import { ResourceVersionSpliceError, spliceResourceVersion, stripResourceVersion } from './resource-version-splice.ts';

const splice = (json: string, rv: number): string => spliceResourceVersion(Buffer.from(json), rv).toString();
const strip = (json: string): string => stripResourceVersion(Buffer.from(json)).toString();
const enc = (o: object): Buffer => encode(o, EVENTS_DEFS, EVENT);

test('the resourceVersion goes after name, generateName, namespace, selfLink and uid, before anything else', () => {
  const cases: [string, string][] = [
    ['{"metadata":{}}', '{"metadata":{"resourceVersion":"7"}}'],
    ['{"kind":"Event","apiVersion":"v","metadata":{"name":"a"}}', '{"kind":"Event","apiVersion":"v","metadata":{"name":"a","resourceVersion":"7"}}'],
    ['{"metadata":{"name":"a","namespace":"n","uid":"u","generation":2}}', '{"metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"7","generation":2}}'],
    ['{"metadata":{"generateName":"g-","namespace":"n","creationTimestamp":"t"}}', '{"metadata":{"generateName":"g-","namespace":"n","resourceVersion":"7","creationTimestamp":"t"}}'],
    ['{"metadata":{"name":"a","selfLink":"/x"}}', '{"metadata":{"name":"a","selfLink":"/x","resourceVersion":"7"}}'],
    ['{"metadata":{"labels":{"name":"x"}},"note":"n"}', '{"metadata":{"resourceVersion":"7","labels":{"name":"x"}},"note":"n"}'],
    // Without a uid (a dry run, an object written before uids) and with one.
    ['{"metadata":{"name":"a","creationTimestamp":"t"}}', '{"metadata":{"name":"a","resourceVersion":"7","creationTimestamp":"t"}}'],
  ];
  for (const [stored, served] of cases) {
    assert.equal(splice(stored, 7), served);
    assert.equal(strip(served), stored);
  }
});

test('names with escapes, quotes, braces and non-ASCII text are skipped as whole strings', () => {
  const names = ['a\\"b', 'é😀', '\\\\', 'x\\\\\\"}', '\\u003c\\u0026', '"resourceVersion":"1"'.replace(/"/g, '\\"'), '{"metadata":{}}'.replace(/"/g, '\\"')];
  for (const n of names) {
    const stored = `{"metadata":{"name":"${n}","namespace":"ns","uid":"u","labels":{"a":"b"}}}`;
    const served = splice(stored, 12);
    assert.equal(served, `{"metadata":{"name":"${n}","namespace":"ns","uid":"u","resourceVersion":"12","labels":{"a":"b"}}}`);
    assert.equal((JSON.parse(served) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, '12');
    assert.equal(strip(served), stored);
  }
});

test('members before metadata are skipped whatever they hold', () => {
  const stored = '{"a":{"metadata":{"name":"x"},"b":["}",{"c":null}]},"n":-1.5e3,"t":true,"metadata":{"name":"m"},"z":{}}';
  assert.equal(splice(stored, 1), '{"a":{"metadata":{"name":"x"},"b":["}",{"c":null}]},"n":-1.5e3,"t":true,"metadata":{"name":"m","resourceVersion":"1"},"z":{}}');
});

test('a resourceVersion already at its place is replaced (values stored before it was kept out of storage)', () => {
  assert.equal(splice('{"metadata":{"name":"a","resourceVersion":"3","generation":1}}', 45), '{"metadata":{"name":"a","resourceVersion":"45","generation":1}}');
  assert.equal(splice('{"metadata":{"resourceVersion":"3"}}', 0), '{"metadata":{"resourceVersion":"0"}}');
  assert.equal(strip('{"metadata":{"resourceVersion":"3"}}'), '{"metadata":{}}');
  assert.equal(strip('{"metadata":{"resourceVersion":"3","labels":{}}}'), '{"metadata":{"labels":{}}}');
  assert.equal(strip('{"metadata":{"name":"a","resourceVersion":"3"}}'), '{"metadata":{"name":"a"}}');
  const none = Buffer.from('{"metadata":{"name":"a"}}');
  assert.equal(stripResourceVersion(none), none, 'nothing to strip: the same bytes');
});

test('revisions are written as decimal digits, up to the largest safe integer; others are refused', () => {
  for (const rv of [0, 9, 10, 99, 100, 123456789, Number.MAX_SAFE_INTEGER]) assert.equal(splice('{"metadata":{}}', rv), `{"metadata":{"resourceVersion":"${rv}"}}`);
  for (const rv of [-1, 1.5, NaN, 2 ** 60]) assert.throws(() => splice('{"metadata":{}}', rv), RangeError);
});

test('values that are not an object with a metadata object are refused with a ResourceVersionSpliceError', () => {
  for (const bad of ['', '[]', '{}', '{"kind":"x"}', '{"metadata":null}', '{"metadata":"x"}', '{"metadata":{"name":"a', '{"metadata":{"name"}}', '{"metadata":{"name":"a" }}', ' {"metadata":{}}', 'cluster:enc:aesgcm:v1:k:\x00\x01']) {
    assert.throws(() => spliceResourceVersion(Buffer.from(bad), 1), ResourceVersionSpliceError, JSON.stringify(bad));
  }
});

test('an Event as the encoder writes it: splice(strip(x), rv) is x, byte for byte', () => {
  const event = {
    kind: 'Event',
    apiVersion: 'events.cluster.io/v1',
    metadata: {
      name: 'web-1.17a1',
      namespace: 'default',
      uid: '3f1c2a4e-9b7d-4c1e-8f2a-000000000001',
      resourceVersion: '987',
      creationTimestamp: '2024-05-01T12:00:00Z',
      managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'events.cluster.io/v1', time: '2024-05-01T12:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:note': {} } }],
    },
    eventTime: '2024-05-01T12:00:00.123456Z',
    regarding: { kind: 'Pod', name: 'web-1', resourceVersion: '55' },
    note: 'pulled <image> & started',
  };
  const served = enc(event);
  const { resourceVersion: _, ...meta } = event.metadata;
  const stored = enc({ ...event, metadata: meta });
  assert.ok(!stored.includes('"987"') && stored.includes('"resourceVersion":"55"'), 'only the object reference keeps one');
  assert.deepEqual(stripResourceVersion(served), stored);
  assert.deepEqual(spliceResourceVersion(stored, 987), served);
});

// Text that JSON and Go's escaping treat specially, mixed with arbitrary code points.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('', '"', '\\', '\\"', '}', ',"resourceVersion":"1"', '{"metadata":{}}', '<&>', '\u2028\u2029', '\u0000\u001f', 'é', '😀'),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const metadata = fc.record(
  {
    name: text,
    generateName: text,
    namespace: text,
    selfLink: text,
    uid: text,
    generation: fc.nat(),
    creationTimestamp: fc.constant('2024-05-01T12:00:00Z'),
    labels: fc.dictionary(text, text, { maxKeys: 3 }),
    annotations: fc.dictionary(text, text, { maxKeys: 3 }),
    finalizers: fc.array(text, { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const eventArb = fc.record({
  kind: maybe(fc.constant('Event')),
  apiVersion: maybe(text),
  metadata,
  note: maybe(text),
  reason: maybe(text),
  regarding: maybe(fc.record({ name: text, resourceVersion: text }, { requiredKeys: [] })),
});
const revision = fc.oneof(fc.nat({ max: 1000 }), fc.maxSafeNat());

test('property: for every value the encoder writes, strip removes exactly the resourceVersion and splice puts it back', () => {
  fc.assert(
    fc.property(eventArb, revision, revision, (event, rv, other) => {
      const stored = enc(event);
      const served = enc({ ...event, metadata: { ...event.metadata, resourceVersion: String(rv) } });
      assert.deepEqual(spliceResourceVersion(stored, rv), served);
      assert.deepEqual(stripResourceVersion(served), stored);
      assert.deepEqual(spliceResourceVersion(served, other), enc({ ...event, metadata: { ...event.metadata, resourceVersion: String(other) } }));
    }),
    { numRuns: 3000, seed: 9 },
  );
});

test('property: in any JSON object, splice sets metadata.resourceVersion and strip undoes it, whatever the key order', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  const member = fc.tuple(fc.string({ maxLength: 6 }), json);
  const arb = fc
    .record({
      before: fc.array(member, { maxLength: 3 }),
      meta: fc.array(member, { maxLength: 5 }),
      after: fc.array(member, { maxLength: 2 }),
    })
    // Distinct keys, as in any object an encoder writes; no resourceVersion yet.
    .filter(({ before, meta, after }) => {
      const top = [...before, ...after].map(([k]) => k);
      const inner = meta.map(([k]) => k);
      return !top.includes('metadata') && new Set(top).size === top.length && new Set(inner).size === inner.length && !inner.includes('resourceVersion');
    });
  const object = (members: [string, unknown][]) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
  fc.assert(
    fc.property(arb, revision, ({ before, meta, after }, rv) => {
      const stored = object([...before, ['metadata', JSON.parse(object(meta))], ...after]);
      const served = spliceResourceVersion(Buffer.from(stored), rv);
      const expected = JSON.parse(stored) as { metadata: Record<string, unknown> };
      expected.metadata.resourceVersion = String(rv);
      assert.deepEqual(JSON.parse(served.toString()), expected);
      assert.equal(stripResourceVersion(served).toString(), stored);
    }),
    { numRuns: 2000, seed: 9 },
  );
});
