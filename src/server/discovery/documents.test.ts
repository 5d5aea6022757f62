import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  aggregatedContentType,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  wantsAggregated,
} from './documents.ts';
import { type APIResourceInfo, storageVersionHash } from '../../registry/rest/resource-info.ts';

const events: APIResourceInfo = {
  group: 'events.cluster.io',
  version: 'v1',
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  namespaced: true,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  shortNames: ['ev'],
};

test('storageVersionHash is base64 of the first 8 bytes of sha256(group/version/kind)', () => {
  assert.equal(storageVersionHash('events.cluster.io', 'v1', 'Event'), 'r8WNMQvyZxQ=');
  assert.equal(storageVersionHash('', 'v1', 'Event'), 'r2yiGXH7wu8=');
});

test('/api lists v1 and the server address', () => {
  assert.deepEqual(apiVersions('10.0.0.1:6443'), {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  });
});

test('/apis and /apis/<g> carry versions and the preferred (first) version', () => {
  const gv = { groupVersion: 'events.cluster.io/v1', version: 'v1' };
  assert.equal(
    JSON.stringify(apiGroupList([{ name: 'events.cluster.io', versions: ['v1'] }])),
    JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: 'events.cluster.io', versions: [gv], preferredVersion: gv }] }),
  );
  assert.equal(
    JSON.stringify(apiGroup({ name: 'events.cluster.io', versions: ['v1', 'v1beta1'] })),
    JSON.stringify({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'events.cluster.io',
      versions: [gv, { groupVersion: 'events.cluster.io/v1beta1', version: 'v1beta1' }],
      preferredVersion: gv,
    }),
  );
});

test('APIResourceList matches kube key order, derives the storage hash, omits empty lists', () => {
  const list = apiResourceList('events.cluster.io/v1', [events]);
  assert.equal(
    JSON.stringify(list),
    JSON.stringify({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'events.cluster.io/v1',
      resources: [
        {
          name: 'events',
          singularName: 'event',
          namespaced: true,
          kind: 'Event',
          verbs: events.verbs,
          shortNames: ['ev'],
          storageVersionHash: 'r8WNMQvyZxQ=',
        },
      ],
    }),
  );
  const ns: APIResourceInfo = {
    group: '', version: 'v1', resource: 'namespaces', singular: 'namespace', kind: 'Namespace',
    namespaced: false, verbs: ['get'], shortNames: [], storageVersionHash: '',
  };
  assert.deepEqual((apiResourceList('v1', [ns]) as { resources: object[] }).resources[0], {
    name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['get'],
  });
});

test('aggregated discovery v2: APIGroupDiscoveryList shape (§2.2)', () => {
  const doc = aggregatedDiscovery('v2', [{ name: 'events.cluster.io', versions: [{ version: 'v1', resources: [events] }] }]);
  assert.equal(
    JSON.stringify(doc),
    JSON.stringify({
      kind: 'APIGroupDiscoveryList',
      apiVersion: 'apidiscovery.k8s.io/v2',
      metadata: {},
      items: [
        {
          metadata: { name: 'events.cluster.io' },
          versions: [
            {
              version: 'v1',
              resources: [
                {
                  resource: 'events',
                  responseKind: { group: '', version: '', kind: 'Event' },
                  scope: 'Namespaced',
                  singularResource: 'event',
                  verbs: events.verbs,
                  shortNames: ['ev'],
                },
              ],
              freshness: 'Current',
            },
          ],
        },
      ],
    }),
  );
  const core = aggregatedDiscovery('v2beta1', [{ name: '', versions: [{ version: 'v1', resources: [] }] }]) as {
    apiVersion: string;
    items: { metadata: object }[];
  };
  assert.equal(core.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  assert.deepEqual(core.items[0]?.metadata, {});
  assert.equal(aggregatedContentType('v2'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
});

test('wantsAggregated follows the Accept order, parameters in any order, q=0 excluded', () => {
  const kubectl133 =
    'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
  assert.equal(wantsAggregated(kubectl133), 'v2');
  assert.equal(wantsAggregated('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json'), 'v2beta1');
  assert.equal(wantsAggregated('application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io'), 'v2');
  assert.equal(wantsAggregated('application/json;g=apidiscovery.cluster.io;v=v2;as=APIGroupDiscoveryList'), 'v2');
  assert.equal(wantsAggregated('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0,application/json'), undefined);
  assert.equal(wantsAggregated('application/json, */*'), undefined);
  assert.equal(wantsAggregated('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList'), undefined);
  assert.equal(wantsAggregated(undefined), undefined);
});
