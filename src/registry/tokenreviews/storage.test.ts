import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { AuthenticatorRequest } from '../../auth/authenticator/interface.ts';
import { BearerTokenAuthenticator, TokenUnion } from '../../auth/authenticator/token.ts';
import { TokenFileAuthenticator } from '../../auth/authenticator/token-file.ts';
import { resourceInfo } from '../rest/scope.ts';
import { registerTokenReviews } from './storage.ts';

const tokens = new TokenUnion([new TokenFileAuthenticator(new Map([['t1', { name: 'tina', uid: 'u1', groups: ['readers'] }]]))]);
const bearer = new BearerTokenAuthenticator(tokens);
const scopes = registerTokenReviews({ authenticate: async (token) => bearer.authenticate({ headers: { authorization: `Bearer ${token}` } } as AuthenticatorRequest) });

async function review(spec: object, gv = 'authentication.k8s.io/v1'): Promise<any> {
  const s = scopes.find((x) => x.groupVersion === gv)!;
  const served = await s.store.create('', { kind: 'TokenReview', apiVersion: gv, metadata: {}, spec } as unknown as KubeObject, undefined, { dryRun: false, user: { name: 'system:node:n1', groups: ['system:nodes'] } });
  return JSON.parse(served.value.toString('utf8'));
}

test('TokenReview: create-only in authentication.k8s.io/v1 and authentication.cluster.io/v1', () => {
  assert.deepEqual(scopes.map((s) => s.groupVersion), ['authentication.k8s.io/v1', 'authentication.cluster.io/v1']);
  assert.deepEqual(resourceInfo(scopes[0]!), {
    group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', singular: 'tokenreview', kind: 'TokenReview',
    namespaced: false, verbs: ['create'], shortNames: [], storageVersionHash: '',
  });
});

test('a known token names its user (with system:authenticated); an unknown one is not authenticated, with the reason', async () => {
  const ok = await review({ token: 't1' });
  assert.deepEqual(ok.spec, { token: 't1' });
  assert.deepEqual(ok.status, { authenticated: true, user: { username: 'tina', uid: 'u1', groups: ['readers', 'system:authenticated'] } });
  const bad = await review({ token: 'nope' }, 'authentication.cluster.io/v1');
  assert.equal(bad.apiVersion, 'authentication.cluster.io/v1');
  assert.deepEqual(bad.status, { user: {}, error: 'invalid bearer token' });
  // A token with two spaces in front is no bearer token at all: not authenticated, never anonymous.
  assert.deepEqual((await review({ token: ' t1' })).status, { user: {} });
});

test('no token: 400 with upstream text', async () => {
  await assert.rejects(review({}), { code: 400, message: 'token is required for TokenReview in authentication' });
});
