import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokenReviewStatus } from './webhook-token.ts';

test('a TokenReview answer: its user, or the refusal with its reason', () => {
  assert.deepEqual(
    parseTokenReviewStatus({
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      status: { authenticated: true, user: { username: 'tina', uid: 'u1', groups: ['readers'], extra: { scopes: ['a', 'b'] } } },
    }),
    { authenticated: true, user: { name: 'tina', uid: 'u1', groups: ['readers'], extra: { scopes: ['a', 'b'] } }, error: '' },
  );
  assert.deepEqual(parseTokenReviewStatus({ kind: 'TokenReview', status: { user: {}, error: 'invalid bearer token' } }), { authenticated: false, user: undefined, error: 'invalid bearer token' });
  assert.deepEqual(parseTokenReviewStatus({}), { authenticated: false, user: undefined, error: '' });
});

test('an answer that is not a TokenReview is an error, never a user', () => {
  assert.throws(() => parseTokenReviewStatus('ok'), /malformed TokenReview answer: not a JSON object/);
  assert.throws(() => parseTokenReviewStatus({ kind: 'Status', status: 'Failure' }), /kind "Status", expected TokenReview/);
  assert.throws(() => parseTokenReviewStatus({ status: { authenticated: true, user: { username: 'x', groups: 'admins' } } }), /status\.user\.groups is not a list of strings/);
});
