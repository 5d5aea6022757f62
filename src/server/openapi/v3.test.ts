import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventDefinition } from '../../registry/events/storage.ts';
import { openAPIResourceOf } from './types.ts';
import { nodeDefinition } from '../../registry/nodes/storage.ts';

const EVENTS_RESOURCE = openAPIResourceOf(eventDefinition(0));
import { openAPIV3Document, openAPIV3Index } from './v3.ts';

type Json = Record<string, any>;
const doc = openAPIV3Document('events.cluster.io/v1', [EVENTS_RESOURCE]) as Json;
const schemas = doc['components']['schemas'] as Json;
const paths = doc['paths'] as Json;
const P = '/apis/events.cluster.io/v1';
const GVK = { group: 'events.cluster.io', kind: 'Event', version: 'v1' };
const paramNames = (op: Json) => (op['parameters'] as Json[]).map((p) => p['name']);

test('index lists each group version document by path with its hash', () => {
  assert.deepEqual(openAPIV3Index([{ path: 'apis/events.cluster.io/v1', hash: 'AB12' }, { path: 'api/v1', hash: 'CD' }]), {
    paths: {
      'apis/events.cluster.io/v1': { serverRelativeURL: '/openapi/v3/apis/events.cluster.io/v1?hash=AB12' },
      'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=CD' },
    },
  });
});

test('Event and EventList carry x-kubernetes-group-version-kind as an array', () => {
  assert.equal(doc['openapi'], '3.0.0');
  const event = schemas['io.cluster.api.events.v1.Event'];
  assert.deepEqual(event['x-kubernetes-group-version-kind'], [GVK]);
  assert.equal(event['type'], 'object');
  assert.deepEqual(event['required'], ['eventTime']);
  assert.deepEqual(event['properties']['eventTime'], {
    $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
    description: 'Time when the Event was first observed. Required.',
  });
  assert.deepEqual(schemas['io.cluster.api.events.v1.EventList']['x-kubernetes-group-version-kind'], [{ ...GVK, kind: 'EventList' }]);
  assert.equal(schemas['io.cluster.api.events.v1.EventList']['properties']['items']['items']['$ref'], '#/components/schemas/io.cluster.api.events.v1.Event');
});

test('meta types: Time/MicroTime are date-time strings, FieldsV1 an object, markers present', () => {
  for (const t of ['Time', 'MicroTime']) {
    const s = schemas[`io.k8s.apimachinery.pkg.apis.meta.v1.${t}`];
    assert.equal(s['type'], 'string');
    assert.equal(s['format'], 'date-time');
  }
  assert.equal(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1']['type'], 'object');
  const om = schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']['properties'];
  assert.equal(om['ownerReferences']['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(om['ownerReferences']['x-kubernetes-patch-merge-key'], 'uid');
  assert.equal(om['ownerReferences']['x-kubernetes-list-type'], 'map');
  assert.deepEqual(om['ownerReferences']['x-kubernetes-list-map-keys'], ['uid']);
  assert.equal(om['finalizers']['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(om['finalizers']['x-kubernetes-list-type'], 'set');
  assert.equal(om['managedFields']['x-kubernetes-list-type'], 'atomic');
  assert.deepEqual(om['labels'], {
    description: 'Key/value pairs used to organize and select objects.',
    type: 'object',
    additionalProperties: { type: 'string' },
    'x-kubernetes-map-type': 'granular',
  });
  assert.equal(schemas['io.k8s.api.core.v1.ObjectReference']['x-kubernetes-map-type'], 'atomic');
  assert.equal(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference']['x-kubernetes-map-type'], 'atomic');
});

test('shared meta definitions are present and every $ref resolves', () => {
  for (const n of ['Status', 'DeleteOptions', 'Patch', 'WatchEvent', 'APIResourceList']) assert.ok(schemas[`io.k8s.apimachinery.pkg.apis.meta.v1.${n}`], n);
  assert.deepEqual(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']['x-kubernetes-group-version-kind'], [
    { group: '', kind: 'DeleteOptions', version: 'v1' },
    { group: 'events.cluster.io', kind: 'DeleteOptions', version: 'v1' },
  ]);
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  assert.ok(refs.length > 20);
  for (const r of refs) {
    const name = r.slice('"$ref":"#/components/schemas/'.length, -1);
    assert.ok(schemas[name], `dangling ${r}`);
  }
});

test('paths: every endpoint of the spec table, with its actions', () => {
  const actions: Record<string, Record<string, string>> = {};
  for (const [path, item] of Object.entries(paths)) {
    actions[path] = {};
    for (const [method, op] of Object.entries(item as Json)) if (method !== 'parameters') actions[path]![method] = op['x-kubernetes-action'] ?? '';
  }
  assert.deepEqual(actions, {
    [`${P}/`]: { get: '' },
    [`${P}/events`]: { get: 'list' },
    [`${P}/namespaces/{namespace}/events`]: { delete: 'deletecollection', get: 'list', post: 'post' },
    [`${P}/namespaces/{namespace}/events/{name}`]: { delete: 'delete', get: 'get', patch: 'patch', put: 'put' },
    [`${P}/watch/events`]: { get: 'watchlist' },
    [`${P}/watch/namespaces/{namespace}/events`]: { get: 'watchlist' },
    [`${P}/watch/namespaces/{namespace}/events/{name}`]: { get: 'watch' },
  });
  assert.deepEqual(
    paths[`${P}/namespaces/{namespace}/events/{name}`]['parameters'].map((p: Json) => [p['name'], p['in'], p['required']]),
    [['namespace', 'path', true], ['name', 'path', true]],
  );
});

test('PATCH operation: GVK object, fieldValidation and the four patch media types', () => {
  const patch = paths[`${P}/namespaces/{namespace}/events/{name}`]['patch'];
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], GVK);
  assert.equal(patch['operationId'], 'patchEventsV1NamespacedEvent');
  assert.deepEqual(paramNames(patch), ['pretty', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.deepEqual(Object.keys(patch['requestBody']['content']), [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
  assert.equal(patch['requestBody']['content']['application/strategic-merge-patch+json']['schema']['$ref'], '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
  assert.deepEqual(Object.keys(patch['responses']), ['200', '201', '401']);
});

test('query parameters follow the spec applicability table', () => {
  const item = paths[`${P}/namespaces/{namespace}/events/{name}`];
  const coll = paths[`${P}/namespaces/{namespace}/events`];
  assert.deepEqual(paramNames(item['get']), ['pretty']);
  assert.deepEqual(paramNames(item['put']), ['pretty', 'dryRun', 'fieldManager', 'fieldValidation']);
  assert.deepEqual(paramNames(coll['post']), ['pretty', 'dryRun', 'fieldManager', 'fieldValidation']);
  const del = ['pretty', 'dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy'];
  assert.deepEqual(paramNames(item['delete']), del);
  const selecting = ['continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'shardSelector', 'timeoutSeconds'];
  assert.deepEqual(paramNames(coll['delete']), [...del, ...selecting]);
  const listing = ['pretty', 'allowWatchBookmarks', ...selecting, 'watch'];
  assert.deepEqual(paramNames(coll['get']), listing);
  assert.deepEqual(paramNames(paths[`${P}/events`]['get']), listing);
  assert.deepEqual(paramNames(paths[`${P}/watch/namespaces/{namespace}/events/{name}`]['get']), listing);
  assert.deepEqual(coll['get']['parameters'].find((p: Json) => p['name'] === 'limit'), {
    name: 'limit',
    in: 'query',
    description: 'Maximum number of items to return; more items are signalled by a continue token.',
    schema: { type: 'integer' },
  });
  assert.ok('application/json;stream=watch' in coll['get']['responses']['200']['content']);
  assert.equal(coll['post']['responses']['201']['content']['application/json']['schema']['$ref'], '#/components/schemas/io.cluster.api.events.v1.Event');
  assert.equal(coll['delete']['requestBody']['content']['application/json']['schema']['$ref'], '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions');
});

test('a document only holds the resources of its group version; cluster-scoped resources get flat paths', () => {
  const ns = {
    ...EVENTS_RESOURCE,
    info: { ...EVENTS_RESOURCE.info, group: '', kind: 'Event', namespaced: false, verbs: ['get', 'list', 'watch'] },
  };
  const core = openAPIV3Document('v1', [EVENTS_RESOURCE, ns]) as Json;
  assert.deepEqual(Object.keys(core['paths']), ['/api/v1/', '/api/v1/events', '/api/v1/events/{name}', '/api/v1/watch/events', '/api/v1/watch/events/{name}']);
  assert.equal(core['paths']['/api/v1/events/{name}']['get']['operationId'], 'readCoreV1Event');
  assert.equal(core['paths']['/api/v1/events']['get']['tags'][0], 'core_v1');
});

test("v3: Node's status and proxy subresources, connect answers any media type as a string", () => {
  const node = openAPIResourceOf(nodeDefinition());
  const info = { ...node.info, subresources: [{ name: 'proxy', kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] }, { name: 'status', kind: 'Node', verbs: ['get', 'patch', 'update'] }] };
  const core = openAPIV3Document('v1', [{ ...node, info }]) as Json;
  assert.deepEqual(Object.keys(core['paths']['/api/v1/nodes/{name}/status']).sort(), ['get', 'parameters', 'patch', 'put']);
  assert.deepEqual(core['paths']['/api/v1/nodes/{name}/status']['put']['requestBody']['content']['application/json'], { schema: { $ref: '#/components/schemas/io.k8s.api.core.v1.Node' } });
  const proxy = core['paths']['/api/v1/nodes/{name}/proxy/{path}'];
  assert.equal(proxy['post']['operationId'], 'connectCoreV1PostNodeProxyWithPath');
  assert.deepEqual(proxy['post']['responses']['200'], { description: 'OK', content: { '*/*': { schema: { type: 'string' } } } });
  assert.equal(proxy['post']['requestBody'], undefined);
  assert.deepEqual(proxy['parameters'].map((p: Json) => `${p['in']}:${p['name']}`), ['path:name', 'path:path', 'query:path']);
});
