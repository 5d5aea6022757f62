import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../request-info.ts';
import { authorize, forbiddenError, isPublicPath } from './authorization.ts';
import type { UserInfo } from './authentication.ts';

const admin: UserInfo = { name: 'alice', groups: ['system:masters', 'system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['dev', 'system:authenticated'] };

function ri(method: string, url: string) {
  const u = new URL(url, 'https://localhost');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

test('authorize: system:masters is allowed everything, everyone else nothing', () => {
  assert.deepEqual(authorize(admin, ri('DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events')), { allowed: true, reason: '' });
  assert.deepEqual(authorize(admin, ri('GET', '/metrics')), { allowed: true, reason: '' });
  assert.deepEqual(authorize(bob, ri('GET', '/apis/events.cluster.io/v1/events')), { allowed: false, reason: '' });
  assert.deepEqual(authorize(bob, ri('GET', '/version')), { allowed: false, reason: '' });
});

test('forbiddenError: upstream texts for resource requests', () => {
  let e = forbiddenError(bob, ri('GET', '/apis/events.cluster.io/v1/namespaces/ns/events/n'), '');
  assert.equal(e.code, 403);
  assert.equal(e.reason, 'Forbidden');
  assert.equal(e.message,
    'events.events.cluster.io "n" is forbidden: User "bob" cannot get resource "events" in API group "events.cluster.io" in the namespace "ns"');
  assert.deepEqual(e.toStatus(), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: e.message,
    reason: 'Forbidden',
    details: { name: 'n', group: 'events.cluster.io', kind: 'events' },
    code: 403,
  });
  e = forbiddenError(bob, ri('GET', '/apis/events.cluster.io/v1/namespaces/ns/events?limit=500'), '');
  assert.equal(e.message,
    'events.events.cluster.io is forbidden: User "bob" cannot list resource "events" in API group "events.cluster.io" in the namespace "ns"');
  assert.deepEqual(e.details, { group: 'events.cluster.io', kind: 'events' });
  e = forbiddenError(bob, ri('GET', '/apis/events.cluster.io/v1/events?watch=1'), '');
  assert.equal(e.message,
    'events.events.cluster.io is forbidden: User "bob" cannot watch resource "events" in API group "events.cluster.io" at the cluster scope');
  e = forbiddenError(bob, ri('GET', '/apis/events.cluster.io/v1/namespaces/ns/events?fieldSelector=metadata.name%3Dx'), '');
  assert.equal(e.message,
    'events.events.cluster.io "x" is forbidden: User "bob" cannot list resource "events" in API group "events.cluster.io" in the namespace "ns"');
  e = forbiddenError(bob, ri('DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events'), 'Everything is forbidden.');
  assert.equal(e.message,
    'events.events.cluster.io is forbidden: User "bob" cannot deletecollection resource "events" in API group "events.cluster.io" ' +
      'in the namespace "ns": Everything is forbidden.');
  // core group and subresources
  e = forbiddenError(bob, ri('GET', '/api/v1/namespaces/x'), '');
  assert.equal(e.message, 'namespaces "x" is forbidden: User "bob" cannot get resource "namespaces" in API group "" in the namespace "x"');
  assert.deepEqual(e.details, { name: 'x', kind: 'namespaces' });
  e = forbiddenError(bob, ri('PUT', '/api/v1/namespaces/ns/pods/p/status'), '');
  assert.equal(e.message, 'pods "p" is forbidden: User "bob" cannot update resource "pods/status" in API group "" in the namespace "ns"');
});

test('forbiddenError: non-resource requests, quoting and HTML escaping', () => {
  let e = forbiddenError(bob, ri('GET', '/x'), '');
  assert.equal(e.message, 'forbidden: User "bob" cannot get path "/x"');
  assert.deepEqual(e.details, {});
  assert.deepEqual(e.toStatus().details, {});
  e = forbiddenError(bob, ri('POST', '/apis'), '');
  assert.equal(e.message, 'forbidden: User "bob" cannot post path "/apis"');
  // user-controlled text is Go-quoted and then HTML-escaped; the authorizer reason is not escaped
  e = forbiddenError({ name: 'a"<b>&\n', groups: [] }, ri('GET', '/metrics'), '<r>');
  assert.equal(e.message, 'forbidden: User "a\\"&lt;b&gt;&amp;\\n" cannot get path "/metrics": <r>');
  // the name goes through Go's %q only (pathname as Go's decoded URL.Path)
  e = forbiddenError(bob, parseRequestInfo('GET', '/apis/events.cluster.io/v1/namespaces/ns/events/a<b', new URLSearchParams()), '');
  assert.equal(e.message,
    'events.events.cluster.io "a<b" is forbidden: User "bob" cannot get resource "events" in API group "events.cluster.io" in the namespace "ns"');
});

test('isPublicPath: what system:public-info-viewer grants', () => {
  for (const p of ['/healthz', '/livez', '/readyz', '/version', '/version/']) assert.equal(isPublicPath(p), true, p);
  for (const p of ['/readyz/sqlite', '/healthz/ping', '/livez/', '/metrics', '/', '/api', '/apis', '/openapi/v3', '/versionz']) {
    assert.equal(isPublicPath(p), false, p);
  }
  assert.equal(isPublicPath('/healthz', 'HEAD'), false);
  assert.equal(isPublicPath('/healthz', 'POST'), false);
});
