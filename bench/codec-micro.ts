/**
 * Codec micro-benchmark (not a test): `node --import tsx bench/codec-micro.ts`.
 * Decodes and encodes a ~700-byte Event and prints µs per operation, best of 5 rounds (the machine is shared);
 * then the resourceVersion splice storage does per value read or written, in ns, beside a plain copy of the value.
 */
import { EVENT } from '../src/apis/events/v1/schema.ts';
import { decodeBody } from '../src/apimachinery/codec/decode.ts';
import { EVENTS_DEFS } from '../src/apis/events/v1/definitions.ts';
import { encode } from '../src/apimachinery/codec/encode.ts';
import { spliceResourceVersion, stripResourceVersion } from '../src/apimachinery/codec/resource-version-splice.ts';

const event = {
  kind: 'Event',
  apiVersion: 'events.cluster.io/v1',
  metadata: { generateName: 'nginx-7c5ddbdf54-x2x7q-', namespace: 'default', labels: { app: 'nginx' } } as Record<string, unknown>,
  eventTime: '2024-05-01T10:00:00.123456Z',
  reportingController: 'kubelet',
  reportingInstance: 'node-1',
  action: 'Pulling',
  reason: 'Pulling',
  regarding: { kind: 'Pod', namespace: 'default', name: 'nginx-7c5ddbdf54-x2x7q', uid: '6b2c0f1e-9a1b-4c1e-8f7a-1d2e3f4a5b6c', apiVersion: 'v1', resourceVersion: '12345', fieldPath: 'spec.containers{nginx}' },
  note: 'Pulling image "nginx:1.25"',
  type: 'Normal',
  deprecatedSource: { component: 'kubelet', host: 'node-1' },
  deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
  deprecatedLastTimestamp: '2024-05-01T10:00:00Z',
  deprecatedCount: 1,
};
const body = Buffer.from(JSON.stringify(event));
const obj = decodeBody(body, 'application/json', EVENTS_DEFS, EVENT).object;
let sink = 0;

function best(run: () => number, n = 200_000): number {
  let min = Infinity;
  for (let round = 0; round < 5; round++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) sink += run();
    min = Math.min(min, Number(process.hrtime.bigint() - t) / n / 1000);
  }
  return min;
}

const dec = best(() => decodeBody(body, 'application/json', EVENTS_DEFS, EVENT).problems.length);
const en = best(() => encode(obj, EVENTS_DEFS, EVENT).length);
const parse = best(() => (JSON.parse(body.toString()) as { kind: string }).kind.length);
const stringify = best(() => Buffer.from(JSON.stringify(obj)).length);
console.log(`body ${body.length} B: decode ${dec.toFixed(2)} µs, encode ${en.toFixed(2)} µs`);
console.log(`baselines: JSON.parse(buf.toString()) ${parse.toFixed(2)} µs, Buffer.from(JSON.stringify) ${stringify.toFixed(2)} µs (${sink > 0})`);

// As stored: the created object (name, uid, creationTimestamp set) without its resourceVersion.
event.metadata = { name: 'nginx-7c5ddbdf54-x2x7q-8f2ab', ...event.metadata, uid: '3f1c2a4e-9b7d-4c1e-8f2a-000000000001', creationTimestamp: '2024-05-01T10:00:00Z' };
const stored = encode(decodeBody(Buffer.from(JSON.stringify(event)), 'application/json', EVENTS_DEFS, EVENT).object, EVENTS_DEFS, EVENT);
const served = spliceResourceVersion(stored, 1234567);
const ns = (run: () => number) => best(run, 1_000_000) * 1000;
const splice = ns(() => spliceResourceVersion(stored, 1234567).length);
const strip = ns(() => stripResourceVersion(served).length);
const copy = ns(() => Buffer.from(stored).length);
console.log(`stored value ${stored.length} B: spliceResourceVersion ${splice.toFixed(0)} ns, stripResourceVersion ${strip.toFixed(0)} ns; baseline Buffer.from(value) ${copy.toFixed(0)} ns`);
