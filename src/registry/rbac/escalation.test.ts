import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionUser, Attributes } from '../../admission/interfaces.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { GROUP } from '../../apis/rbac/v1/types.ts';
import { RBACEscalationPlugin } from './escalation.ts';
import { FakeRbacSource, group, user } from './testing.ts';

const bob: AdmissionUser = { name: 'bob', groups: ['admins', 'system:authenticated'] };
const events = (verbs: string[]) => ({ verbs, apiGroups: ['events.cluster.io'], resources: ['events'] });

function attrs(resource: string, object: KubeObject, u: AdmissionUser = bob, namespace = 'b', oldObject: KubeObject | null = null): Attributes {
  return {
    name: object.metadata.name ?? '',
    namespace,
    resource: { group: GROUP, version: 'v1', resource },
    subresource: '',
    kind: { group: GROUP, version: 'v1', kind: '' },
    operation: oldObject ? 'UPDATE' : 'CREATE',
    dryRun: false,
    object,
    oldObject,
    userInfo: u,
  };
}

function setUp(allowed: string[] = []) {
  const src = new FakeRbacSource()
    .clusterRole('reader', [events(['get', 'list'])])
    .clusterRole('cluster-admin', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])
    .bind('b', 'bob', 'ClusterRole', 'reader', [group('admins')]);
  const asked: string[] = [];
  const plugin = new RBACEscalationPlugin({
    source: src,
    privilegedGroups: ['system:masters'],
    authorize: (_u, verb, resource, ns, name) => {
      asked.push(`${verb} ${resource} ${ns}/${name}`);
      return allowed.includes(`${verb} ${resource} ${ns}/${name}`);
    },
  });
  return { plugin, asked };
}

const role = (name: string, verbs: string[]) => ({ metadata: { name, namespace: 'b' }, rules: [events(verbs)] });
const binding = (name: string, kind: string, ref: string) => ({ metadata: { name, namespace: 'b' }, roleRef: { apiGroup: GROUP, kind, name: ref }, subjects: [user('x')] });

test('escalation: roles with held rules pass, others are refused with upstream text', async () => {
  const { plugin, asked } = setUp();
  await plugin.validate(attrs('roles', role('ok', ['get'])));
  await assert.rejects(plugin.validate(attrs('roles', role('more', ['get', 'delete', 'create']))), (e: Error) => {
    assert.equal(
      e.message,
      'roles.rbac.authorization.k8s.io "more" is forbidden: user "bob" (groups=["admins" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["events.cluster.io"], Resources:["events"], Verbs:["delete" "create"]}',
    );
    return true;
  });
  assert.deepEqual(asked, ['escalate roles b/ok', 'escalate roles b/more']);
});

test('escalation: escalate on the role, or system:masters, lifts the check', async () => {
  const { plugin } = setUp(['escalate roles b/more']);
  await plugin.validate(attrs('roles', role('more', ['delete'])));
  await plugin.validate(attrs('roles', role('any', ['*']), { name: 'root', groups: ['system:masters'] }));
});

test('escalation: a ClusterRole is checked against cluster-wide rules; an aggregated one needs everything', async () => {
  const { plugin } = setUp();
  await assert.rejects(plugin.validate(attrs('clusterroles', { metadata: { name: 'c' }, rules: [events(['get'])] }, bob, '')), /not currently held/);
  const agg = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } };
  await assert.rejects(plugin.validate(attrs('clusterroles', agg, bob, '')), /\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}/);
});

test('escalation: binding a role needs its rules, or bind on it', async () => {
  const { plugin, asked } = setUp();
  await plugin.validate(attrs('rolebindings', binding('r', 'ClusterRole', 'reader')));
  await assert.rejects(plugin.validate(attrs('rolebindings', binding('root', 'ClusterRole', 'cluster-admin'))), /^StatusError: rolebindings.rbac.authorization.k8s.io "root" is forbidden: .*not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}$/s);
  await assert.rejects(plugin.validate(attrs('rolebindings', binding('gone', 'Role', 'nope'))), { message: 'rolebindings.rbac.authorization.k8s.io "gone" is forbidden: role.rbac.authorization.k8s.io "nope" not found' });
  assert.deepEqual(asked.slice(0, 2), ['bind clusterroles b/reader', 'bind clusterroles b/cluster-admin']);
  const withBind = setUp(['bind clusterroles b/cluster-admin']).plugin;
  await withBind.validate(attrs('rolebindings', binding('root', 'ClusterRole', 'cluster-admin')));
});

test('escalation: an update that only changes what the garbage collector writes is not checked', async () => {
  const { plugin } = setUp();
  const old = role('big', ['*']);
  await plugin.validate(attrs('roles', { ...old, metadata: { ...old.metadata, finalizers: ['x'] } }, bob, 'b', old));
  await assert.rejects(plugin.validate(attrs('roles', { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, bob, 'b', old)), /not currently held/);
});
