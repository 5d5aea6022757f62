import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { CLUSTER_ROLE_BINDING_PROTOBUF, CLUSTER_ROLE_PROTOBUF, ROLE_BINDING_PROTOBUF, ROLE_PROTOBUF } from './protobuf.ts';

/**
 * An encoder written out separately from the decoder, field numbers as k8s.io/api rbac/v1 and apimachinery meta/v1
 * generated.proto have them: what kubectl 1.32+ writes must come back as the JSON kubectl 1.31 sends.
 */
const WIRE = `
syntax = "proto2";
package wire;
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message ObjectMeta { optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional Time creationTimestamp = 8; map<string, string> labels = 11; map<string, string> annotations = 12; }
message Requirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message LabelSelector { map<string, string> matchLabels = 1; repeated Requirement matchExpressions = 2; }
message PolicyRule { repeated string verbs = 1; repeated string apiGroups = 2; repeated string resources = 3; repeated string resourceNames = 4; repeated string nonResourceURLs = 5; }
message Subject { optional string kind = 1; optional string apiGroup = 2; optional string name = 3; optional string namespace = 4; }
message RoleRef { optional string apiGroup = 1; optional string kind = 2; optional string name = 3; }
message AggregationRule { repeated LabelSelector clusterRoleSelectors = 1; }
message Role { optional ObjectMeta metadata = 1; repeated PolicyRule rules = 2; }
message ClusterRole { optional ObjectMeta metadata = 1; repeated PolicyRule rules = 2; optional AggregationRule aggregationRule = 3; }
message Binding { optional ObjectMeta metadata = 1; repeated Subject subjects = 2; optional RoleRef roleRef = 3; }
`;
const root = protobuf.parse(WIRE, { keepCase: true }).root;
const wire = (type: string, obj: object) => {
  const T = root.lookupType(`wire.${type}`);
  return Buffer.from(T.encode(T.fromObject(obj)).finish());
};

// Go writes every string field, empty or not, and a zero Time for creationTimestamp.
const goMeta = (name: string, namespace = '') => ({ name, generateName: '', namespace, creationTimestamp: {} });

test('Role: rules with the core group ("") kept, Go\'s empty strings and zero time dropped', () => {
  const raw = wire('Role', {
    metadata: goMeta('reader', 'a'),
    rules: [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['events'] },
      { verbs: ['get'], apiGroups: ['events.cluster.io'], resources: ['events'], resourceNames: ['e1'] },
    ],
  });
  assert.deepEqual(ROLE_PROTOBUF.decode(raw), {
    metadata: { name: 'reader', namespace: 'a' },
    rules: [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['events'] },
      { verbs: ['get'], apiGroups: ['events.cluster.io'], resources: ['events'], resourceNames: ['e1'] },
    ],
  });
});

test('ClusterRole: non-resource rules, labels, annotations and an aggregation rule', () => {
  const raw = wire('ClusterRole', {
    metadata: { ...goMeta('probe'), labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, annotations: { note: 'x' } },
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'k', operator: 'In', values: ['v1', 'v2'] }] }] },
  });
  assert.deepEqual(CLUSTER_ROLE_PROTOBUF.decode(raw), {
    metadata: { name: 'probe', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, annotations: { note: 'x' } },
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'k', operator: 'In', values: ['v1', 'v2'] }] }] },
  });
});

test('RoleBinding and ClusterRoleBinding: subjects of every kind and the roleRef', () => {
  const body = {
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol', namespace: '' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g1', namespace: '' },
      { kind: 'ServiceAccount', apiGroup: '', name: 'robot', namespace: 'sa-ns' },
    ],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  };
  const json = {
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g1' },
      { kind: 'ServiceAccount', name: 'robot', namespace: 'sa-ns' },
    ],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  };
  assert.deepEqual(ROLE_BINDING_PROTOBUF.decode(wire('Binding', { metadata: goMeta('rb', 'a'), ...body })), { metadata: { name: 'rb', namespace: 'a' }, ...json });
  assert.deepEqual(CLUSTER_ROLE_BINDING_PROTOBUF.decode(wire('Binding', { metadata: goMeta('crb'), ...body })), { metadata: { name: 'crb' }, ...json });
});

test('a malformed message is a 400, not a crash', () => {
  assert.throws(() => ROLE_PROTOBUF.decode(Buffer.from([0x12, 0x09, 0x0a])), { code: 400 });
});
