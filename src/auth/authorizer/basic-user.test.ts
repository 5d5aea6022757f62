import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '../authenticator/user.ts';
import { BasicUserAuthorizer } from './basic-user.ts';
import type { Attributes } from './interface.ts';

const attrs = (user: UserInfo, over: Partial<Attributes> = {}): Attributes => ({
  user,
  verb: 'create',
  namespace: '',
  apiGroup: 'authentication.k8s.io',
  apiVersion: 'v1',
  resource: 'selfsubjectreviews',
  subresource: '',
  name: '',
  path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
  isResourceRequest: true,
  ...over,
});

test('basic user: every authenticated user may create a SelfSubjectReview, and nothing else', () => {
  const a = new BasicUserAuthorizer();
  const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
  assert.equal(a.authorize(attrs(bob)).decision, 'Allow');
  assert.equal(a.authorize(attrs(bob, { apiGroup: 'authentication.cluster.io' })).decision, 'Allow');
  assert.equal(a.authorize(attrs({ name: 'system:anonymous', groups: ['system:unauthenticated'] })).decision, 'NoOpinion');
  for (const over of [{ verb: 'get' }, { verb: 'list' }, { resource: 'events' }, { apiGroup: 'events.cluster.io' }, { subresource: 'status' }, { isResourceRequest: false }]) {
    assert.equal(a.authorize(attrs(bob, over)).decision, 'NoOpinion', JSON.stringify(over));
  }
});
