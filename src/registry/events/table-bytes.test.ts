/** Event Table rows from stored bytes must be byte for byte the rows rendered from the decoded object. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event } from '../../apis/events/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { goJSON } from '../../apimachinery/codec/encode.ts';
import { ChunkBuilder } from '../../server/handlers/chunks.ts';
import type { ResourceScope } from '../rest/scope.ts';
import { type IncludeObject, toTable } from '../rest/table.ts';
import { coreEventConversion } from '../core-events/storage.ts';
import { eventCodec } from './storage.ts';
import { EVENT_COLUMNS, eventTableCells } from './table.ts';
import { writeEventRow } from './table-bytes.ts';
import { newEventEntry, type EventAttrsPools } from './attrs.ts';
import type { Served } from '../rest/served.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const scope = { tableColumns: EVENT_COLUMNS, tableCells: (o: KubeObject, now: number) => eventTableCells(o as unknown as Event, now) } as ResourceScope;

const managedFields = [
  {
    manager: 'kubectl',
    operation: 'Update',
    apiVersion: 'events.cluster.io/v1',
    time: '2026-03-01T11:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:note': {}, 'f:reason': {}, 'f:regarding': {}, 'f:type': {} },
  },
];

function ev(over: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    kind: 'Event',
    apiVersion: 'events.cluster.io/v1',
    metadata: { name: 'e1', namespace: 'ns', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-03-01T11:00:00Z', managedFields, ...meta },
    eventTime: '2026-03-01T11:55:00.123456Z',
    reportingController: 'kubelet',
    reportingInstance: 'node-1',
    action: 'Pull',
    reason: 'Pulling',
    type: 'Normal',
    regarding: { kind: 'Pod', namespace: 'ns', name: 'web', uid: 'p-1', apiVersion: 'v1', fieldPath: 'spec.containers{c}' },
    note: 'Pulling image nginx',
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
    ...over,
  } as unknown as KubeObject;
}

const CASES: [string, KubeObject][] = [
  ['plain', ev()],
  ['unicode everywhere', ev({ note: 'Ünïcødé 名前 🚀 done', reason: 'Grüße', type: 'Wärning', regarding: { kind: 'Pöd', name: 'naïve-名', fieldPath: 'spec.ç' } }, { name: 'é-1' })],
  ['upper-case unicode kind', ev({ regarding: { kind: 'ÉTAT', name: 'x' } })],
  ['escapes', ev({ note: 'say "hi" \\ back\nslash\t<b>&amp; \u2028 end', reason: 'A<B', regarding: { kind: 'Pod', name: 'a&b', fieldPath: 'x>y' } })],
  ['note to trim (ASCII)', ev({ note: '  padded note \n' })],
  ['note to trim (unicode spaces)', ev({ note: '\u00a0nbsp ends\u3000' })],
  ['note of one character', ev({ note: 'x' })],
  ['note of only spaces', ev({ note: '   ' })],
  ['no note, type, reason, field path, instance', ev({ note: undefined, type: undefined, reason: undefined, reportingInstance: undefined, regarding: { kind: 'Node', name: 'n1' } })],
  ['regarding without name', ev({ regarding: { kind: 'Cluster' } })],
  ['regarding empty', ev({ regarding: {} })],
  ['series', ev({ series: { count: 5, lastObservedTime: '2026-03-01T11:59:30.000001Z' } })],
  ['series in the future', ev({ series: { count: 2, lastObservedTime: '2026-03-01T12:05:00.000000Z' } })],
  ['deprecated core fields', ev({ deprecatedSource: { component: 'kubelet-old', host: 'h1' }, deprecatedFirstTimestamp: '2025-12-01T00:00:00Z', deprecatedLastTimestamp: '2026-02-28T12:00:00Z', deprecatedCount: 42 })],
  ['deprecated source component only', ev({ deprecatedSource: { component: 'sched' }, reportingInstance: '' })],
  ['escaped source parts', ev({ deprecatedSource: { component: 'c"1', host: 'h\\2' } })],
  ['core event without eventTime', ev({ eventTime: null, deprecatedFirstTimestamp: '2026-03-01T10:00:00Z' })],
  ['no times at all', ev({ eventTime: null })],
  ['old and leap-day times', ev({ eventTime: '2024-02-29T23:59:59.999999Z', deprecatedLastTimestamp: '2021-01-31T00:00:00Z' })],
  ['related and action', ev({ related: { kind: 'Node', name: 'n', fieldPath: 'f' }, action: 'Kill' })],
  ['labels and annotations', ev({}, { labels: { app: 'web', 'x/y': 'z<>' }, annotations: { note: 'looks like },"eventTime":"x"', 'a\\b': '"q"' } })],
  ['a label key eventTime after an object-valued key', ev({}, { managedFields: [{ ...managedFields[0], fieldsV1: { 'f:a': {}, eventTime: {} } }], labels: { eventTime: 'v', a: 'b' } })],
  ['metadata without name', ev({}, { name: undefined, generateName: 'gen-' })],
  ['no managedFields', ev({}, { managedFields: undefined })],
];

function oldRow(obj: KubeObject, include: IncludeObject, rowObject?: KubeObject): Buffer {
  return Buffer.from(goJSON(toTable(scope, [obj], {}, include, false, NOW, rowObject ? [rowObject] : undefined).rows[0]));
}

function newRow(value: Buffer | Served, include: IncludeObject, object?: Buffer): Buffer {
  const out = new ChunkBuilder();
  const item = Buffer.isBuffer(value) ? { key: '/events/ns/e1', value } : value;
  assert.ok(writeEventRow(item, NOW, include, object, out), 'the writer reads the value');
  return out.takeAll();
}

test('rows from bytes equal rows from the decoded object, for every include', () => {
  for (const [name, obj] of CASES) {
    const value = eventCodec.encode(obj);
    const decoded = eventCodec.decode(value);
    for (const include of ['None', 'Metadata', 'Object'] as const) {
      assert.equal(newRow(value, include).toString('utf8'), oldRow(decoded, include).toString('utf8'), `${name} (${include})`);
    }
  }
});

test('core/v1 view rows: cells from the stored object, the row object in core/v1', () => {
  for (const [name, obj] of CASES) {
    const value = eventCodec.encode(obj);
    const decoded = eventCodec.decode(value);
    const core = coreEventConversion.fromStored(value);
    const coreObj = JSON.parse(core.toString('utf8')) as KubeObject;
    assert.equal(newRow(value, 'Object', core).toString('utf8'), oldRow(decoded, 'Object', coreObj).toString('utf8'), name);
    assert.equal(newRow(value, 'Metadata', core).toString('utf8'), oldRow(decoded, 'Metadata').toString('utf8'), name);
  }
});

test('the cells as kubectl reads them', () => {
  const value = eventCodec.encode(ev({ deprecatedSource: { component: 'kubelet-old', host: 'h1' }, note: ' hi ' }));
  const row = JSON.parse(newRow(value, 'None').toString('utf8')) as { cells: unknown[] };
  assert.deepEqual(row.cells, ['4m59s', 'Normal', 'Pulling', 'pod/web', 'spec.containers{c}', 'kubelet-old, h1', 'hi', '4m59s', 1, 'e1']);
});

test('map keys that look like integers keep the stored (Go) order in the row metadata', () => {
  const value = eventCodec.encode(ev({}, { labels: { b: '1', '10': '2', '9': '3' } }));
  const row = newRow(value, 'Metadata').toString('utf8');
  assert.ok(row.includes('"labels":{"10":"2","9":"3","b":"1"}'), row);
});

test('values that are not JSON objects of the expected shape are left to the general path', () => {
  const out = new ChunkBuilder();
  for (const text of ['[]', '{"kind":"Event"}', '{"metadata":1}', 'null', '{"kind":"Event","metadata":{"name":"x"']) {
    assert.equal(writeEventRow({ key: '/events/ns/x', value: Buffer.from(text) }, NOW, 'Metadata', undefined, out), false, text);
  }
  assert.equal(out.size, 0);
});

const unshared: EventAttrsPools = { string: (x) => x, version: (x) => x, profile: (_k, make) => make() };

/** The cache entry of `obj` (as the watch cache builds it, with the Table cells' offsets when they apply). */
function entryOf(obj: KubeObject) {
  const value = eventCodec.encode(obj);
  return newEventEntry(`/events/ns/${obj.metadata.name ?? ''}`, 7, value, eventCodec.decode(value) as unknown as Event, unshared);
}

// Cases the offsets describe (the rest fall back to scanning: escapes, notes to trim, non-ASCII regarding names).
const WITH_OFFSETS = new Set(['plain', 'upper-case unicode kind', 'note of one character', 'no note, type, reason, field path, instance', 'regarding without name', 'regarding empty', 'series', 'series in the future', 'deprecated core fields', 'deprecated source component only', 'core event without eventTime', 'no times at all', 'old and leap-day times', 'related and action', 'labels and annotations', 'a label key eventTime after an object-valued key', 'no managedFields']);

test('rows of cached entries (from recorded offsets, or scanned) equal rows from the decoded object, in both views', () => {
  for (const [name, obj] of CASES) {
    const entry = entryOf(obj);
    assert.equal(entry.hasRowOffsets(), WITH_OFFSETS.has(name), `${name}: offsets recorded`);
    const decoded = eventCodec.decode(entry.value);
    for (const include of ['None', 'Metadata', 'Object'] as const) {
      assert.equal(newRow(entry, include).toString('utf8'), oldRow(decoded, include).toString('utf8'), `${name} (${include})`);
    }
    const core = coreEventConversion.fromStored(entry.value);
    const coreObj = JSON.parse(core.toString('utf8')) as KubeObject;
    assert.equal(newRow(entry, 'Object', core).toString('utf8'), oldRow(decoded, 'Object', coreObj).toString('utf8'), name);
  }
});

test('offset rows: counts, ages of many times in one list, and shapes the offsets leave to scanning', () => {
  const times = ['2026-03-01T11:59:59.999999Z', '2026-03-01T12:00:00.500000Z', '2026-03-01T12:00:02Z', '2020-01-01T00:00:00Z', 'not-a-time', '2026-02-29T10:00:00Z'];
  for (const t of times) {
    for (const e of [entryOf(ev({ eventTime: t })), entryOf(ev({ deprecatedLastTimestamp: t, deprecatedCount: 123456 }))]) {
      assert.ok(e.hasRowOffsets(), t);
      assert.equal(newRow(e, 'Metadata').toString('utf8'), oldRow(eventCodec.decode(e.value), 'Metadata').toString('utf8'), t);
    }
  }
  const scanned: [string, KubeObject][] = [
    ['count beyond the packed range', ev({ deprecatedCount: 1 << 22 })],
    ['a value of 32 KB', ev({ note: 'n'.repeat(32 * 1024) })],
    ['a name with an escape', ev({}, { name: 'a<b' })],
  ];
  for (const [name, obj] of scanned) {
    const e = entryOf(obj);
    assert.equal(e.hasRowOffsets(), false, name);
    assert.equal(newRow(e, 'None').toString('utf8'), oldRow(eventCodec.decode(e.value), 'None').toString('utf8'), name);
  }
});
