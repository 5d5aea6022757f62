import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceInfo } from '../rest/scope.ts';
import { registerSelfSubjectReviews, selfSubjectReviewFor } from './storage.ts';

test('SelfSubjectReview: the answer is the user, whatever the request said; create only, not stored', async () => {
  const scopes = registerSelfSubjectReviews();
  assert.deepEqual(scopes.map((s) => s.groupVersion), ['authentication.k8s.io/v1', 'authentication.k8s.io/v1beta1', 'authentication.cluster.io/v1']);
  const v1 = scopes[0]!;
  assert.deepEqual(resourceInfo(v1), {
    group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', singular: 'selfsubjectreview', kind: 'SelfSubjectReview',
    namespaced: false, verbs: ['create'], shortNames: [], storageVersionHash: '',
  });
  const user = { name: 'jane', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } };
  const served = await v1.store.create('', { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { name: 'ignored' } }, undefined, { dryRun: false, user });
  const json = JSON.parse(served.value.toString('utf8'));
  assert.equal(json.kind, 'SelfSubjectReview');
  assert.equal(json.apiVersion, 'authentication.k8s.io/v1');
  assert.deepEqual(Object.keys(json.metadata), ['creationTimestamp']);
  assert.deepEqual(json.status, { userInfo: { username: 'jane', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } } });
  assert.deepEqual(selfSubjectReviewFor({ name: 'system:anonymous', groups: [] }, 'authentication.k8s.io/v1', 0), {
    kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: '1970-01-01T00:00:00Z' }, status: { userInfo: { username: 'system:anonymous' } },
  });
  await assert.rejects(async () => v1.store.get('', 'x', undefined), { code: 405 });
});
