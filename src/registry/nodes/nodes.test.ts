import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../apis/core/v1/node-types.ts';
import { NodeAuthorizer } from '../../auth/authorizer/node.ts';
import { nodeCells, nodeRoles } from './table.ts';
import { validateNode, validateNodeUpdate } from './validation.ts';

const node = (n: Partial<Node> & { name?: string }): Node => ({ metadata: { name: n.name ?? 'n1', ...n.metadata }, ...(n.spec ? { spec: n.spec } : {}), ...(n.status ? { status: n.status } : {}) });

test('roles: node-role.kubernetes.io/<role> suffixes and kubernetes.io/role, sorted and unique', () => {
  const n = node({ metadata: { labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/': 'x', 'kubernetes.io/role': 'control-plane', 'node-role.kubernetes.io/control-plane': '' } } });
  assert.deepEqual(nodeRoles(n), ['control-plane', 'worker']);
});

test('status column: the last Ready condition decides; SchedulingDisabled follows', () => {
  const n = node({ spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Ready', status: 'Unknown' }] } });
  assert.equal(nodeCells(n, Date.now())[1], 'NotReady,SchedulingDisabled');
});

test('validation: duplicate taints, dual-stack podCIDRs, repeated addresses on update', () => {
  const taints = validateNode(node({ spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule', value: 'v' }] } }));
  assert.deepEqual(taints.map((e) => e.field), ['metadata.taints[1]']);
  assert.match(taints[0]!.text(), /Duplicate value: .*: taints must be unique by key and effect pair$/);
  assert.deepEqual(validateNode(node({ spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } })), []);
  const two = validateNode(node({ spec: { podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] } }));
  assert.equal(two[0]!.text(), 'spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP family');
  const old = node({ metadata: { resourceVersion: '1' } });
  const dup = validateNodeUpdate(node({ metadata: { resourceVersion: '1' }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] } }), old);
  assert.deepEqual(dup.map((e) => e.field), ['status.addresses[1]']);
});

test('Node authorizer: node identities only, static rules, unknown node refused with upstream reason', () => {
  const a = new NodeAuthorizer();
  const attrs = (name: string, groups: string[], verb: string, resource: string, subresource = '') =>
    ({ user: { name, groups }, verb, namespace: '', apiGroup: '', apiVersion: 'v1', resource, subresource, name: 'n1', path: '', isResourceRequest: true }) as const;
  assert.equal(a.authorize(attrs('system:node:n1', ['system:nodes'], 'patch', 'nodes', 'status')).decision, 'Allow');
  assert.equal(a.authorize(attrs('system:node:n1', ['system:nodes'], 'delete', 'nodes')).decision, 'NoOpinion');
  assert.equal(a.authorize(attrs('system:node:n1', ['other'], 'get', 'nodes')).decision, 'NoOpinion');
  assert.deepEqual(a.authorize(attrs('system:node:', ['system:nodes'], 'get', 'nodes')), { decision: 'NoOpinion', reason: 'unknown node for user "system:node:"' });
  assert.match(String(a.rulesFor({ name: 'system:node:n1', groups: ['system:nodes'] }).error), /node authorizer does not support user rule resolution/);
});
