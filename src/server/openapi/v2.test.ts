import { test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { eventDefinition } from '../../registry/events/storage.ts';
import { openAPIResourceOf } from './types.ts';
import { nodeDefinition } from '../../registry/nodes/storage.ts';

const EVENTS_RESOURCE = openAPIResourceOf(eventDefinition(0));
import { ProtoWriter } from './protobuf.ts';
import { swaggerV2, swaggerV2Protobuf } from './v2.ts';

type Json = Record<string, any>;

// --- a small protobuf decoder, independent of the writer --------------------------------------------------
interface Field {
  no: number;
  wire: number;
  value: Buffer | bigint;
}

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
}

function decode(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos);
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [v, p2] = readVarint(buf, p1);
      out.push({ no, wire, value: v });
      pos = p2;
    } else if (wire === 1) {
      out.push({ no, wire, value: buf.subarray(p1, p1 + 8) });
      pos = p1 + 8;
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, p1);
      out.push({ no, wire, value: buf.subarray(p2, p2 + Number(len)) });
      pos = p2 + Number(len);
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}
const all = (m: Field[], no: number) => m.filter((f) => f.no === no);
const strs = (m: Field[], no: number) => all(m, no).map((f) => (f.value as Buffer).toString('utf8'));
const str = (m: Field[], no: number) => strs(m, no)[0];
const subs = (m: Field[], no: number) => all(m, no).map((f) => decode(f.value as Buffer));
const sub = (m: Field[], no: number) => {
  const s = subs(m, no);
  assert.equal(s.length, 1, `exactly one field ${no}`);
  return s[0]!;
};
const varint = (m: Field[], no: number) => all(m, no)[0]?.value as bigint | undefined;
/** Repeated Named* pairs (name = 1, value = 2) as a Map. */
const named = (m: Field[], no: number) => new Map(subs(m, no).map((pair) => [str(pair, 1)!, sub(pair, 2)]));
/** Vendor extensions (NamedAny; Any.yaml = 2) parsed back from YAML. */
const extensions = (m: Field[], no: number) => new Map([...named(m, no)].map(([k, any]) => [k, YAML.parse(str(any, 2)!)]));

// gnostic openapiv2/OpenAPIv2.proto field numbers used below.
const DOC = { swagger: 1, info: 2, paths: 8, definitions: 9 };
const INFO = { title: 1, version: 2 };
const PATHS = { path: 2 };
const PATH_ITEM = { get: 2, put: 3, post: 4, delete: 5, patch: 8, parameters: 9 };
const OP = { tags: 1, description: 3, operationId: 5, produces: 6, consumes: 7, parameters: 8, responses: 9, ext: 13 };
const SCHEMA = { ref: 1, format: 2, description: 4, maxLength: 11, required: 19, enum: 20, additionalProperties: 21, type: 22, items: 23, properties: 25, ext: 31 };

const swagger = swaggerV2([EVENTS_RESOURCE]) as Json;
const pb = decode(swaggerV2Protobuf(swagger));
const ITEM_PATH = '/apis/events.cluster.io/v1/namespaces/{namespace}/events/{name}';
const GVK = { group: 'events.cluster.io', kind: 'Event', version: 'v1' };
const SMP = 'application/strategic-merge-patch+json';

test('ProtoWriter: varints, negative int64, doubles, empty proto3 scalars omitted', () => {
  assert.deepEqual([...new ProtoWriter().int64(1, 300).finish()], [0x08, 0xac, 0x02]);
  const neg = new ProtoWriter().int64(2, -1).finish();
  assert.equal(neg.length, 11);
  assert.equal(readVarint(neg, 1)[0], (1n << 64n) - 1n);
  const d = decode(new ProtoWriter().double(3, 1.5).finish());
  assert.equal((d[0]!.value as Buffer).readDoubleLE(0), 1.5);
  assert.equal(d[0]!.wire, 1);
  assert.equal(new ProtoWriter().string(1, '').bool(2, false).int64(3, 0).finish().length, 0);
  assert.deepEqual([...new ProtoWriter().oneofBool(2, false).finish()], [0x10, 0x00]);
});

test('v2 JSON: definitions, paths and the patch operation', () => {
  assert.equal(swagger['swagger'], '2.0');
  assert.deepEqual(swagger['definitions']['io.cluster.api.events.v1.Event']['x-kubernetes-group-version-kind'], [GVK]);
  const patch = swagger['paths'][ITEM_PATH]['patch'];
  assert.deepEqual(patch['consumes'], ['application/json-patch+json', 'application/merge-patch+json', SMP, 'application/apply-patch+yaml']);
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], GVK);
  assert.equal(patch['x-kubernetes-action'], 'patch');
  assert.deepEqual(patch['parameters'][0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  assert.ok(patch['parameters'].some((p: Json) => p['name'] === 'fieldValidation' && p['in'] === 'query' && p['type'] === 'string'));
  const refs = JSON.stringify(swagger).match(/"\$ref":"[^"]+"/g) ?? [];
  for (const r of refs) assert.ok(swagger['definitions'][r.slice('"$ref":"#/definitions/'.length, -1)], `dangling ${r}`);
});

test('protobuf Document: swagger, info and every path', () => {
  assert.equal(str(pb, DOC.swagger), '2.0');
  const info = sub(pb, DOC.info);
  assert.equal(str(info, INFO.title), 'core-apiserver');
  assert.equal(str(info, INFO.version), 'unversioned');
  const paths = named(sub(pb, DOC.paths), PATHS.path);
  assert.deepEqual([...paths.keys()], Object.keys(swagger['paths']));
});

test('protobuf PATCH operation: GVK extension, fieldValidation query parameter, body, consumes, responses', () => {
  const item = named(sub(pb, DOC.paths), PATHS.path).get(ITEM_PATH)!;
  const op = sub(item, PATH_ITEM.patch);
  assert.equal(str(op, OP.operationId), 'patchEventsV1NamespacedEvent');
  assert.deepEqual(strs(op, OP.tags), ['events_v1']);
  assert.ok(strs(op, OP.consumes).includes(SMP));
  assert.deepEqual(strs(op, OP.produces), ['application/json', 'application/yaml']);
  const ext = extensions(op, OP.ext);
  assert.deepEqual(ext.get('x-kubernetes-group-version-kind'), GVK);
  assert.equal(ext.get('x-kubernetes-action'), 'patch');

  // ParametersItem.parameter(1) → Parameter: body_parameter(1) | non_body_parameter(2) → query(3) / path(4).
  const params = subs(op, OP.parameters).map((pi) => sub(pi, 1));
  const body = sub(params[0]!, 1);
  assert.equal(str(body, 2), 'body');
  assert.equal(str(body, 3), 'body');
  assert.equal(varint(body, 4), 1n);
  assert.equal(str(sub(body, 5), SCHEMA.ref), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
  const queries = params.slice(1).map((p) => sub(sub(p, 2), 3));
  const fv = queries.find((q) => str(q, 4) === 'fieldValidation')!;
  assert.ok(fv, 'fieldValidation query parameter');
  assert.equal(str(fv, 2), 'query');
  assert.equal(str(fv, 6), 'string');
  assert.equal(varint(fv, 20), 1n); // unique_items
  assert.equal(str(queries.find((q) => str(q, 4) === 'force')!, 6), 'boolean');

  // Path-level parameters: PathParameterSubSchema (required 1, in 2, name 4, type 5, unique_items 19).
  const pathParams = subs(item, PATH_ITEM.parameters).map((pi) => sub(sub(sub(pi, 1), 2), 4));
  assert.deepEqual(pathParams.map((p) => [str(p, 4), str(p, 2), varint(p, 1), str(p, 5), varint(p, 19)]), [
    ['namespace', 'path', 1n, 'string', 1n],
    ['name', 'path', 1n, 'string', 1n],
  ]);

  // Responses.response_code(1) → NamedResponseValue → ResponseValue.response(1) → Response{description 1, schema 2}.
  const responses = named(sub(op, OP.responses), 1);
  assert.deepEqual([...responses.keys()], ['200', '201', '401']);
  const ok = sub(responses.get('200')!, 1);
  assert.equal(str(ok, 1), 'OK');
  assert.equal(str(sub(sub(ok, 2), 1), SCHEMA.ref), '#/definitions/io.cluster.api.events.v1.Event');
  for (const m of [PATH_ITEM.get, PATH_ITEM.put, PATH_ITEM.delete]) assert.equal(subs(item, m).length, 1);
});

test('protobuf Definitions: Event schema with type, required, properties and GVK; meta markers', () => {
  const defs = named(sub(pb, DOC.definitions), 1);
  assert.deepEqual([...defs.keys()], Object.keys(swagger['definitions']));
  const event = defs.get('io.cluster.api.events.v1.Event')!;
  assert.deepEqual(strs(sub(event, SCHEMA.type), 1), ['object']);
  assert.deepEqual(strs(event, SCHEMA.required), ['eventTime']);
  assert.match(str(event, SCHEMA.description)!, /^A report of something that happened/);
  assert.deepEqual(extensions(event, SCHEMA.ext).get('x-kubernetes-group-version-kind'), [GVK]);
  const props = named(sub(event, SCHEMA.properties), 1);
  assert.equal(str(props.get('metadata')!, SCHEMA.ref), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.deepEqual(strs(sub(props.get('note')!, SCHEMA.type), 1), ['string']);

  const time = defs.get('io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime')!;
  assert.deepEqual([strs(sub(time, SCHEMA.type), 1), str(time, SCHEMA.format)], [['string'], 'date-time']);
  assert.deepEqual(strs(sub(defs.get('io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1')!, SCHEMA.type), 1), ['object']);

  const meta = named(sub(defs.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!, SCHEMA.properties), 1);
  const owners = meta.get('ownerReferences')!;
  assert.deepEqual(Object.fromEntries(extensions(owners, SCHEMA.ext)), {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['uid'],
    'x-kubernetes-patch-strategy': 'merge',
    'x-kubernetes-patch-merge-key': 'uid',
  });
  // ItemsItem.schema(1) (repeated) and AdditionalPropertiesItem.schema(1).
  assert.equal(str(sub(sub(owners, SCHEMA.items), 1), SCHEMA.ref), '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference');
  assert.deepEqual(strs(sub(sub(sub(meta.get('labels')!, SCHEMA.additionalProperties), 1), SCHEMA.type), 1), ['string']);
});

test('protobuf encoder: other schema keywords, boolean additionalProperties, unknown keys rejected', () => {
  const doc = {
    swagger: '2.0',
    info: { title: 't', version: '1' },
    paths: {},
    definitions: { X: { type: 'object', additionalProperties: false, properties: { s: { type: 'string', maxLength: 5, enum: ['a', 'b'] } } } },
  };
  const x = named(sub(decode(swaggerV2Protobuf(doc)), DOC.definitions), 1).get('X')!;
  const ap = sub(x, SCHEMA.additionalProperties);
  assert.deepEqual(ap, [{ no: 2, wire: 0, value: 0n }]);
  const s = named(sub(x, SCHEMA.properties), 1).get('s')!;
  assert.equal(varint(s, SCHEMA.maxLength), 5n);
  assert.deepEqual(subs(s, SCHEMA.enum).map((any) => YAML.parse(str(any, 2)!)), ['a', 'b']);
  assert.throws(() => swaggerV2Protobuf({ ...doc, definitions: { X: { type: 'object', nope: 1 } } }), /unsupported key nope in schema/);
});

test("Node's status and proxy subresources: upstream's paths, operation ids, connect methods and parameters", () => {
  const node = openAPIResourceOf(nodeDefinition());
  const info = { ...node.info, subresources: [{ name: 'proxy', kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }, { name: 'status', kind: 'Node', verbs: ['get', 'patch', 'update'] }] };
  const doc = swaggerV2([{ ...node, info }]) as Json;
  const status = doc['paths']['/api/v1/nodes/{name}/status'];
  assert.deepEqual(Object.keys(status).sort(), ['get', 'parameters', 'patch', 'put']);
  assert.deepEqual([status['get']['operationId'], status['patch']['operationId'], status['put']['operationId']], ['readCoreV1NodeStatus', 'patchCoreV1NodeStatus', 'replaceCoreV1NodeStatus']);
  assert.equal(status['put']['description'], 'replace status of the specified Node');
  assert.deepEqual(status['get']['x-kubernetes-group-version-kind'], { group: '', kind: 'Node', version: 'v1' });
  for (const path of ['/api/v1/nodes/{name}/proxy', '/api/v1/nodes/{name}/proxy/{path}']) {
    const item = doc['paths'][path];
    const suffix = path.endsWith('{path}') ? 'WithPath' : '';
    assert.deepEqual(Object.keys(item).filter((k) => k !== 'parameters'), ['delete', 'get', 'head', 'options', 'patch', 'post', 'put']);
    assert.deepEqual(item['get'], {
      description: 'connect GET requests to proxy of Node',
      consumes: ['*/*'],
      produces: ['*/*'],
      tags: ['core_v1'],
      operationId: `connectCoreV1GetNodeProxy${suffix}`,
      responses: { '200': { description: 'OK', schema: { type: 'string' } }, '401': { description: 'Unauthorized' } },
      'x-kubernetes-action': 'connect',
      'x-kubernetes-group-version-kind': { group: '', kind: 'NodeProxyOptions', version: 'v1' },
    });
    assert.deepEqual(
      item['parameters'].map((p: Json) => `${p['in']}:${p['name']}`),
      suffix ? ['path:name', 'path:path', 'query:path'] : ['path:name', 'query:path'],
    );
    assert.equal(item['parameters'].at(-1)['description'], 'Path is the URL path to use for the current proxy request to node.');
  }
  // The protobuf document carries every path too.
  const paths = named(sub(decode(swaggerV2Protobuf(doc)), DOC.paths), PATHS.path);
  assert.deepEqual([...paths.keys()], Object.keys(doc['paths']));
});
