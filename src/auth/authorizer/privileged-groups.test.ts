import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '../authenticator/user.ts';
import type { Attributes } from './interface.ts';
import { PrivilegedGroupsAuthorizer } from './privileged-groups.ts';

function attrs(user: UserInfo, verb = 'delete', path = '/apis/events.cluster.io/v1/namespaces/ns/events'): Attributes {
  return { user, verb, namespace: 'ns', apiGroup: 'events.cluster.io', apiVersion: 'v1', resource: 'events', subresource: '', name: '', path, isResourceRequest: true };
}

test('privileged groups: members of system:masters are allowed everything, everyone else gets no opinion', () => {
  const a = new PrivilegedGroupsAuthorizer(['system:masters']);
  const admin: UserInfo = { name: 'alice', groups: ['system:masters', 'system:authenticated'] };
  const bob: UserInfo = { name: 'bob', groups: ['dev', 'system:authenticated'] };
  assert.deepEqual(a.authorize(attrs(admin)), { decision: 'Allow', reason: '' });
  assert.deepEqual(a.authorize({ ...attrs(admin, 'get', '/metrics'), isResourceRequest: false }), { decision: 'Allow', reason: '' });
  assert.deepEqual(a.authorize(attrs(bob)), { decision: 'NoOpinion', reason: '' });
  assert.deepEqual(a.authorize(attrs({ name: 'system:masters', groups: [] })), { decision: 'NoOpinion', reason: '' }, 'a user name is not a group');
  assert.deepEqual(new PrivilegedGroupsAuthorizer(['a', 'dev']).authorize(attrs(bob)).decision, 'Allow');
});
