import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole } from '../../apis/rbac/v1/types.ts';
import { aggregatedRules } from './aggregation.ts';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES } from './bootstrap-policy.ts';
import { reconcileClusterRole, reconcileClusterRoleBinding } from './reconcile.ts';
import { validateBinding, validateClusterRole } from './validation.ts';

const expected = BOOTSTRAP_CLUSTER_ROLES.find((r) => r.metadata.name === 'cluster-admin')!;

test('bootstrap policy is valid', () => {
  for (const r of BOOTSTRAP_CLUSTER_ROLES) assert.deepEqual(validateClusterRole(r), [], r.metadata.name);
  for (const b of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) assert.deepEqual(validateBinding(b, false), [], b.metadata.name);
});

test('reconcile: a missing role is created, missing rules and labels are added, additions kept', () => {
  assert.deepEqual(reconcileClusterRole(null, expected), expected);
  const userRule = { verbs: ['get'], apiGroups: ['x'], resources: ['y'] };
  const existing: ClusterRole = { metadata: { name: 'cluster-admin', labels: { mine: 'yes', 'kubernetes.io/bootstrapping': 'custom' } }, rules: [expected.rules![0]!, userRule] };
  const out = reconcileClusterRole(existing, expected);
  assert.deepEqual(out.rules, [expected.rules![0], userRule, expected.rules![1]]);
  assert.deepEqual(out.metadata.labels, { 'kubernetes.io/bootstrapping': 'custom', mine: 'yes' });
  assert.equal(out.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true');
});

test('reconcile: autoupdate "false" leaves a role and a binding as they are', () => {
  const existing: ClusterRole = { metadata: { name: 'cluster-admin', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] };
  assert.equal(reconcileClusterRole(existing, expected), existing);
  const b = BOOTSTRAP_CLUSTER_ROLE_BINDINGS[0]!;
  const mine = { ...b, metadata: { name: b.metadata.name!, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, subjects: [] };
  assert.equal(reconcileClusterRoleBinding(mine, b), mine);
  assert.deepEqual(reconcileClusterRoleBinding({ ...b, subjects: [] }, b).subjects, b.subjects);
});

test('aggregation: selected roles in name order, each rule once, never itself', () => {
  const admin: ClusterRole = { metadata: { name: 'admin', labels: { agg: 'true' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }, { matchExpressions: [{ key: 'extra', operator: 'Exists' }] }] }, rules: [{ verbs: ['x'] }] };
  const r = (name: string, verb: string, labels: Record<string, string>): ClusterRole => ({ metadata: { name, labels }, rules: [{ verbs: [verb], apiGroups: [''], resources: ['events'] }] });
  const all = [admin, r('z', 'get', { agg: 'true' }), r('b', 'list', { agg: 'true' }), r('c', 'get', { extra: '' }), r('d', 'delete', { agg: 'false' })];
  assert.deepEqual(aggregatedRules(admin, all).map((x) => x.verbs[0]), ['list', 'get']);
});
