import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeRbacSource, group, serviceAccount, user } from '../../registry/rbac/testing.ts';
import type { UserInfo } from '../authenticator/user.ts';
import type { Attributes } from './interface.ts';
import { RBACAuthorizer } from './rbac.ts';

function req(u: UserInfo, verb: string, namespace: string, resource = 'events', extra: Partial<Attributes> = {}): Attributes {
  return { user: u, verb, namespace, apiGroup: 'events.cluster.io', apiVersion: 'v1', resource, subresource: '', name: '', path: '', isResourceRequest: true, ...extra };
}
const alice: UserInfo = { name: 'alice', groups: ['team-a', 'system:authenticated'] };
const readEvents = [{ verbs: ['get', 'list', 'watch'], apiGroups: ['', 'events.cluster.io'], resources: ['events'] }];

test('RBAC authorizer: RoleBindings grant in their namespace only, with upstream reason texts', () => {
  const src = new FakeRbacSource().clusterRole('view', readEvents).bind('a', 'team-a-view', 'ClusterRole', 'view', [group('team-a')]);
  const rbac = new RBACAuthorizer(src);
  assert.deepEqual(rbac.authorize(req(alice, 'list', 'a')), { decision: 'Allow', reason: 'RBAC: allowed by RoleBinding "team-a-view/a" of ClusterRole "view" to Group "team-a"' });
  assert.equal(rbac.authorize(req(alice, 'list', 'b')).decision, 'NoOpinion');
  assert.equal(rbac.authorize(req(alice, 'list', '')).decision, 'NoOpinion', 'across all namespaces needs a ClusterRoleBinding');
  assert.equal(rbac.authorize(req(alice, 'create', 'a')).decision, 'NoOpinion');
  assert.deepEqual(rbac.authorize(req({ name: 'bob', groups: [] }, 'list', 'a')), { decision: 'NoOpinion', reason: '' });
});

test('RBAC authorizer: ClusterRoleBindings grant everywhere, and non-resource URLs', () => {
  const src = new FakeRbacSource()
    .clusterRole('reader', readEvents)
    .clusterRole('health', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz/*'] }])
    .bind('', 'alice-reads', 'ClusterRole', 'reader', [user('alice')])
    .bind('', 'health', 'ClusterRole', 'health', [group('system:authenticated')]);
  const rbac = new RBACAuthorizer(src);
  assert.deepEqual(rbac.authorize(req(alice, 'watch', '')), { decision: 'Allow', reason: 'RBAC: allowed by ClusterRoleBinding "alice-reads" of ClusterRole "reader" to User "alice"' });
  assert.equal(rbac.authorize(req(alice, 'get', 'x')).decision, 'Allow');
  const url = (path: string, verb = 'get') => req(alice, verb, '', '', { isResourceRequest: false, apiGroup: '', path });
  assert.equal(rbac.authorize(url('/healthz')).reason, 'RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health" to Group "system:authenticated"');
  assert.equal(rbac.authorize(url('/readyz/sqlite')).decision, 'Allow');
  assert.equal(rbac.authorize(url('/metrics')).decision, 'NoOpinion');
  assert.equal(rbac.authorize(url('/healthz', 'post')).decision, 'NoOpinion');
});

test('RBAC authorizer: service accounts, by name and by group', () => {
  const src = new FakeRbacSource()
    .role('a', 'reader', readEvents)
    .bind('a', 'robot', 'Role', 'reader', [serviceAccount('robot')])
    .bind('a', 'other-ns', 'Role', 'reader', [serviceAccount('robot', 'b')])
    .bind('a', 'all-sa', 'Role', 'reader', [group('system:serviceaccounts:c')]);
  const rbac = new RBACAuthorizer(src);
  const sa = (ns: string, name: string): UserInfo => ({ name: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`] });
  assert.equal(rbac.authorize(req(sa('a', 'robot'), 'get', 'a')).reason, 'RBAC: allowed by RoleBinding "robot/a" of Role "reader" to ServiceAccount "robot/a"');
  assert.equal(rbac.authorize(req(sa('b', 'robot'), 'get', 'a')).reason, 'RBAC: allowed by RoleBinding "other-ns/a" of Role "reader" to ServiceAccount "robot/b"');
  assert.equal(rbac.authorize(req(sa('c', 'anyone'), 'get', 'a')).decision, 'Allow');
  assert.equal(rbac.authorize(req(sa('d', 'robot'), 'get', 'a')).decision, 'NoOpinion');
});

test('RBAC authorizer: a binding to a missing role is no opinion, with the reason', () => {
  const src = new FakeRbacSource().bind('a', 'dangling', 'Role', 'gone', [user('alice')]).bind('', 'dangling', 'ClusterRole', 'gone', [user('alice')]);
  const r = new RBACAuthorizer(src).authorize(req(alice, 'get', 'a'));
  assert.deepEqual(r, {
    decision: 'NoOpinion',
    reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "gone" not found]',
  });
});

test('RBAC authorizer: resourceNames and subresources', () => {
  const src = new FakeRbacSource()
    .clusterRole('one', [{ verbs: ['get', 'update'], apiGroups: ['events.cluster.io'], resources: ['events', 'events/status'], resourceNames: ['e1'] }])
    .bind('', 'one', 'ClusterRole', 'one', [user('alice')]);
  const rbac = new RBACAuthorizer(src);
  assert.equal(rbac.authorize(req(alice, 'get', 'a', 'events', { name: 'e1' })).decision, 'Allow');
  assert.equal(rbac.authorize(req(alice, 'get', 'a', 'events', { name: 'e2' })).decision, 'NoOpinion');
  assert.equal(rbac.authorize(req(alice, 'list', 'a')).decision, 'NoOpinion');
  assert.equal(rbac.authorize(req(alice, 'update', 'a', 'events', { name: 'e1', subresource: 'status' })).decision, 'Allow');
});
