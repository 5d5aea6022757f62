import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT } from '../../events/v1/schema.ts';
import type { Event } from '../../events/v1/types.ts';
import { canonicalize, encode } from '../../../apimachinery/codec/encode.ts';
import { decodeBody } from '../../../apimachinery/codec/decode.ts';
import { EVENTS_DEFS } from '../../events/v1/definitions.ts';
import { coreToEvent, eventToCore } from './conversion.ts';
import { CORE_EVENT, CORE_EVENTS_DEFS } from './schema.ts';
import type { CoreEvent } from './types.ts';

const META = { name: 'e1', namespace: 'ns', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-11-22T10:00:00Z', labels: { a: 'b' } };

/** An events/v1 Event with every field set. */
const FULL_EVENT: Event = {
  kind: 'Event',
  apiVersion: 'events.cluster.io/v1',
  metadata: META,
  eventTime: '2026-11-22T10:00:00.123456Z',
  series: { count: 4, lastObservedTime: '2026-11-22T10:05:00.000001Z' },
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Pull',
  reason: 'Pulled',
  regarding: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'pu', apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec.containers{c}' },
  related: { kind: 'Node', name: 'n1' },
  note: 'pulled the image',
  type: 'Warning',
  deprecatedSource: { component: 'kubelet', host: 'n1' },
  deprecatedFirstTimestamp: '2026-11-22T09:00:00Z',
  deprecatedLastTimestamp: '2026-11-22T09:30:00Z',
  deprecatedCount: 9,
};

/** The same Event as core/v1 shows it, keys in Go struct order. */
const FULL_CORE = {
  kind: 'Event',
  apiVersion: 'v1',
  metadata: META,
  involvedObject: FULL_EVENT.regarding,
  reason: 'Pulled',
  message: 'pulled the image',
  source: { component: 'kubelet', host: 'n1' },
  firstTimestamp: '2026-11-22T09:00:00Z',
  lastTimestamp: '2026-11-22T09:30:00Z',
  count: 9,
  type: 'Warning',
  eventTime: '2026-11-22T10:00:00.123456Z',
  series: { count: 4, lastObservedTime: '2026-11-22T10:05:00.000001Z' },
  action: 'Pull',
  related: { kind: 'Node', name: 'n1' },
  reportingComponent: 'example.com/ctl',
  reportingInstance: 'ctl-1',
};

const toCoreJSON = (ev: Event) => encode(eventToCore(ev), CORE_EVENTS_DEFS, CORE_EVENT).toString();
const toStored = (ce: CoreEvent) => canonicalize(coreToEvent(ce), EVENTS_DEFS, EVENT) as unknown as Event;
const decodeCore = (json: string) => decodeBody(Buffer.from(json), 'application/json', CORE_EVENTS_DEFS, CORE_EVENT).object as CoreEvent;

test('events/v1 → core/v1 renames every field and writes Go key order', () => {
  assert.equal(toCoreJSON(FULL_EVENT), JSON.stringify(FULL_CORE));
});

test('core/v1 → events/v1 renames every field back', () => {
  assert.equal(encode(coreToEvent(decodeCore(JSON.stringify(FULL_CORE))), EVENTS_DEFS, EVENT).toString(), encode(FULL_EVENT, EVENTS_DEFS, EVENT).toString());
});

test('round trips are lossless in both directions', () => {
  assert.deepEqual(toStored(decodeCore(toCoreJSON(FULL_EVENT))), canonicalize(FULL_EVENT, EVENTS_DEFS, EVENT));
  assert.equal(toCoreJSON(toStored(decodeCore(JSON.stringify(FULL_CORE)))), JSON.stringify(FULL_CORE));
});

test('an empty new-style Event shows the fields core always writes', () => {
  const minimal: Event = {
    metadata: { name: 'm', namespace: 'ns' },
    eventTime: '2026-11-22T10:00:00.000000Z',
    regarding: {},
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  };
  assert.equal(
    toCoreJSON(minimal),
    '{"kind":"Event","apiVersion":"v1","metadata":{"name":"m","namespace":"ns"},"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":"2026-11-22T10:00:00.000000Z","reportingComponent":"","reportingInstance":""}',
  );
});

test('an old-style core Event (no eventTime) is stored with eventTime null and read back unchanged', () => {
  const core = '{"metadata":{"name":"o","namespace":"ns"},"involvedObject":{"kind":"Pod","name":"p","namespace":"ns"},"reason":"Killing","message":"stopping","source":{"component":"kubelet"},"count":1,"type":"Normal"}';
  const stored = toStored(decodeCore(core));
  assert.equal(stored.eventTime, null);
  assert.equal(stored.reportingController, undefined);
  assert.deepEqual(stored.deprecatedSource, { component: 'kubelet' });
  assert.equal(stored.deprecatedCount, 1);
  assert.equal(stored.note, 'stopping');
  assert.equal(
    toCoreJSON(stored as Event),
    '{"kind":"Event","apiVersion":"v1","metadata":{"name":"o","namespace":"ns"},"involvedObject":{"kind":"Pod","namespace":"ns","name":"p"},"reason":"Killing","message":"stopping","source":{"component":"kubelet"},"firstTimestamp":null,"lastTimestamp":null,"count":1,"type":"Normal","eventTime":null,"reportingComponent":"","reportingInstance":""}',
  );
});

test('series: core omits a zero count, events/v1 writes it', () => {
  const stored = toStored(decodeCore('{"metadata":{"name":"s"},"involvedObject":{},"series":{"lastObservedTime":"2026-11-22T10:00:00.000000Z"}}'));
  assert.deepEqual(stored.series, { count: 0, lastObservedTime: '2026-11-22T10:00:00.000000Z' });
  assert.match(encode(stored, EVENTS_DEFS, EVENT).toString(), /"series":\{"count":0,"lastObservedTime":"2026-11-22T10:00:00.000000Z"\}/);
  assert.match(toCoreJSON(stored as Event), /"series":\{"lastObservedTime":"2026-11-22T10:00:00.000000Z"\}/);
});

test('core decoding knows only core field names (events/v1 names are unknown fields)', () => {
  const r = decodeBody(Buffer.from('{"metadata":{"name":"x"},"regarding":{},"note":"n","message":"m"}'), 'application/json', CORE_EVENTS_DEFS, CORE_EVENT);
  assert.deepEqual(r.problems, ['unknown field "regarding"', 'unknown field "note"']);
  assert.equal((r.object as CoreEvent).message, 'm');
});
