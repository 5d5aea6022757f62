import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { StatusError } from '../errors.ts';
import { decodeEnvelope, ProtobufKind } from './protobuf.ts';

/** `kubectl auth whoami` of kubectl 1.32, as it arrives: an empty SelfSubjectReview in its envelope. */
const KUBECTL_1_32 = Buffer.from(
  '6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a100a0012001a0022002a0032003800420012060a040a0012001a002200',
  'hex',
);

const PROTO = `
syntax = "proto2";
package test.v1;
message Item { repeated string items = 1; }
message Thing {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional string note = 2;
  map<string, Item> extra = 3;
  optional int64 count = 4;
}
`;

test('protobuf envelope: the magic, then runtime.Unknown naming the kind', () => {
  const e = decodeEnvelope(KUBECTL_1_32);
  assert.equal(e.apiVersion, 'authentication.k8s.io/v1');
  assert.equal(e.kind, 'SelfSubjectReview');
  assert.equal(e.raw.length, 26);
  const isBadRequest = (err: unknown) => err instanceof StatusError && err.code === 400;
  assert.throws(() => decodeEnvelope(Buffer.from('{"kind":"x"}')), isBadRequest);
  assert.throws(() => decodeEnvelope(Buffer.concat([KUBECTL_1_32.subarray(0, 4), Buffer.from([0x0a, 0xff])])), isBadRequest);
});

test('protobuf kind: a message in its JSON form, meta/v1 times and Go\'s empty values as JSON has them', () => {
  const kind = new ProtobufKind(PROTO, 'test.v1.Thing', (o) => {
    const extra = o.extra as Record<string, { items?: string[] }> | undefined;
    if (extra) for (const k of Object.keys(extra)) (extra as Record<string, unknown>)[k] = extra[k]!.items ?? [];
  });
  const root = new protobuf.Root();
  protobuf.parse('syntax = "proto2"; package k8s.io.apimachinery.pkg.apis.meta.v1; message Time { optional int64 seconds = 1; optional int32 nanos = 2; } message ObjectMeta { optional string name = 1; optional string namespace = 3; optional Time creationTimestamp = 8; map<string,string> labels = 11; }', root, { keepCase: true });
  protobuf.parse(PROTO, root, { keepCase: true });
  const T = root.lookupType('test.v1.Thing');
  const raw = Buffer.from(
    T.encode(T.fromObject({ metadata: { name: 'n', namespace: '', creationTimestamp: { seconds: 1700000000 }, labels: { a: 'b' } }, note: '', extra: { 'example.com/k': { items: ['x', 'y'] } }, count: 3 })).finish(),
  );
  assert.deepEqual(kind.decode(raw), { metadata: { name: 'n', creationTimestamp: '2023-11-14T22:13:20Z', labels: { a: 'b' } }, extra: { 'example.com/k': ['x', 'y'] }, count: 3 });
  assert.throws(() => kind.decode(Buffer.from([0x0a, 0x05, 0x01])), (e: unknown) => e instanceof StatusError && e.code === 400);
});
