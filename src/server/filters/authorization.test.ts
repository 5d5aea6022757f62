import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../request-info.ts';
import { GROUP_MASTERS, type UserInfo } from '../../auth/authenticator/user.ts';
import { PrivilegedGroupsAuthorizer } from '../../auth/authorizer/privileged-groups.ts';
import { UnionAuthorizer } from '../../auth/authorizer/union.ts';
import type { RequestInfo } from '../request-info.ts';
import { StatusError } from '../../apimachinery/errors.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../../auth/authorizer/interface.ts';
import { newHandlerContext } from '../handler.ts';
import { attributesOf, forbiddenError, withAuthorization } from './authorization.ts';
import { resolveRequestInfo } from './request-info.ts';
import { fakeRequest, fakeResponse } from './testing.ts';

const admin: UserInfo = { name: 'alice', groups: ['system:masters', 'system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['dev', 'system:authenticated'] };

function ri(method: string, url: string) {
  const u = new URL(url, 'https://localhost');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

/** The 403 of a request by `user`, with the authorizer's reason. */
function forbidden(user: UserInfo, info: RequestInfo, reason: string) {
  return forbiddenError(attributesOf(user, info), reason);
}

test('the configured authorizer: system:masters is allowed everything, everyone else nothing', () => {
  // as core-apiserver.ts builds it
  const authorizer = new UnionAuthorizer([new PrivilegedGroupsAuthorizer([GROUP_MASTERS])]);
  const authorize = (user: UserInfo, info: RequestInfo) => authorizer.authorize(attributesOf(user, info));
  assert.deepEqual(authorize(admin, ri('DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events')), { decision: 'Allow', reason: '' });
  assert.deepEqual(authorize(admin, ri('GET', '/metrics')), { decision: 'Allow', reason: '' });
  assert.deepEqual(authorize(bob, ri('GET', '/apis/events.cluster.io/v1/events')), { decision: 'NoOpinion', reason: '' });
  assert.deepEqual(authorize(bob, ri('GET', '/version')), { decision: 'NoOpinion', reason: '' });
});

test('attributesOf: the user and the request info fields upstream authorizers see', () => {
  const info = ri('PUT', '/api/v1/namespaces/ns/pods/p/status');
  assert.deepEqual(attributesOf(bob, info), {
    user: bob,
    verb: 'update',
    namespace: 'ns',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: 'status',
    name: 'p',
    path: '/api/v1/namespaces/ns/pods/p/status',
    isResourceRequest: true,
  });
});

test('forbiddenError: upstream texts for resource requests', () => {
  let e = forbidden(bob, ri('GET', '/apis/events.cluster.io/v1/namespaces/ns/events/n'), '');
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
  e = forbidden(bob, ri('GET', '/apis/events.cluster.io/v1/namespaces/ns/events?limit=500'), '');
  assert.equal(e.message,
    'events.events.cluster.io is forbidden: User "bob" cannot list resource "events" in API group "events.cluster.io" in the namespace "ns"');
  assert.deepEqual(e.details, { group: 'events.cluster.io', kind: 'events' });
  e = forbidden(bob, ri('GET', '/apis/events.cluster.io/v1/events?watch=1'), '');
  assert.equal(e.message,
    'events.events.cluster.io is forbidden: User "bob" cannot watch resource "events" in API group "events.cluster.io" at the cluster scope');
  e = forbidden(bob, ri('GET', '/apis/events.cluster.io/v1/namespaces/ns/events?fieldSelector=metadata.name%3Dx'), '');
  assert.equal(e.message,
    'events.events.cluster.io "x" is forbidden: User "bob" cannot list resource "events" in API group "events.cluster.io" in the namespace "ns"');
  e = forbidden(bob, ri('DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events'), 'Everything is forbidden.');
  assert.equal(e.message,
    'events.events.cluster.io is forbidden: User "bob" cannot deletecollection resource "events" in API group "events.cluster.io" ' +
      'in the namespace "ns": Everything is forbidden.');
  // core group and subresources
  e = forbidden(bob, ri('GET', '/api/v1/namespaces/x'), '');
  assert.equal(e.message, 'namespaces "x" is forbidden: User "bob" cannot get resource "namespaces" in API group "" in the namespace "x"');
  assert.deepEqual(e.details, { name: 'x', kind: 'namespaces' });
  e = forbidden(bob, ri('PUT', '/api/v1/namespaces/ns/pods/p/status'), '');
  assert.equal(e.message, 'pods "p" is forbidden: User "bob" cannot update resource "pods/status" in API group "" in the namespace "ns"');
});

test('forbiddenError: non-resource requests, quoting and HTML escaping', () => {
  let e = forbidden(bob, ri('GET', '/x'), '');
  assert.equal(e.message, 'forbidden: User "bob" cannot get path "/x"');
  assert.deepEqual(e.details, {});
  assert.deepEqual(e.toStatus().details, {});
  e = forbidden(bob, ri('POST', '/apis'), '');
  assert.equal(e.message, 'forbidden: User "bob" cannot post path "/apis"');
  // user-controlled text is Go-quoted and then HTML-escaped; the authorizer reason is not escaped
  e = forbidden({ name: 'a"<b>&\n', groups: [] }, ri('GET', '/metrics'), '<r>');
  assert.equal(e.message, 'forbidden: User "a\\"&lt;b&gt;&amp;\\n" cannot get path "/metrics": <r>');
  // the name goes through Go's %q only (pathname as Go's decoded URL.Path)
  e = forbidden(bob, parseRequestInfo('GET', '/apis/events.cluster.io/v1/namespaces/ns/events/a<b', new URLSearchParams()), '');
  assert.equal(e.message,
    'events.events.cluster.io "a<b" is forbidden: User "bob" cannot get resource "events" in API group "events.cluster.io" in the namespace "ns"');
});

describe('withAuthorization', () => {
  const admin2: UserInfo = { name: 'admin', groups: ['system:masters'] };
  const answering = (d: AuthorizationResult, async = false): Authorizer & { asked: Attributes[] } => {
    const asked: Attributes[] = [];
    return {
      asked,
      authorize(a) {
        asked.push(a);
        return async ? Promise.resolve(d) : d;
      },
    };
  };

  async function send(authorizer: Authorizer, user: UserInfo | null, method: string, path: string) {
    let served = false;
    const ctx = newHandlerContext();
    resolveRequestInfo(ctx, method, path);
    ctx.user = user;
    const res = fakeResponse();
    try {
      await withAuthorization(async () => void (served = true), authorizer)(fakeRequest(method, path), res, ctx);
    } catch (error) {
      return { served, res, error };
    }
    return { served, res, error: undefined };
  }

  for (const async of [false, true]) {
    it(`lets an allowed request through and refuses the rest with the upstream 403${async ? ' (asynchronous authorizer)' : ''}`, async () => {
      const allow = answering({ decision: 'Allow', reason: '' }, async);
      const r = await send(allow, admin2, 'DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events/n');
      assert.equal(r.served, true);
      assert.deepEqual(allow.asked, [attributesOf(admin2, ri('DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events/n'))]);
      for (const d of [{ decision: 'NoOpinion', reason: '' }, { decision: 'Deny', reason: 'not on weekends' }] as const) {
        const refused = await send(answering(d, async), bob, 'GET', '/apis/events.cluster.io/v1/namespaces/team/events');
        assert.equal(refused.served, false);
        assert.ok(refused.error instanceof StatusError);
        assert.equal(refused.error.code, 403);
        assert.equal(
          refused.error.message,
          'events.events.cluster.io is forbidden: User "bob" cannot list resource "events" in API group "events.cluster.io" in the namespace "team"' +
            (d.reason ? `: ${d.reason}` : ''),
        );
      }
    });
  }

  it('answers 500 when the authorizer failed without allowing', async () => {
    const broken = answering({ decision: 'NoOpinion', reason: '', error: new Error('webhook: connection refused') });
    const r = await send(broken, bob, 'GET', '/apis/events.cluster.io/v1/events');
    assert.equal(r.served, false);
    assert.equal(r.res.written.status, 500);
    assert.equal(r.res.written.body, 'Internal Server Error: "/apis/events.cluster.io/v1/events": webhook: connection refused\n');
  });

  it('does not ask about the public paths, with or without a user', async () => {
    const deny = answering({ decision: 'Deny', reason: '' });
    assert.equal((await send(deny, null, 'GET', '/healthz')).served, true);
    assert.equal((await send(deny, bob, 'GET', '/version')).served, true);
    assert.deepEqual(deny.asked, []);
  });
});

test('withAuthorization: its latency is reported up to the next handler; a refusal is not observed', async () => {
  const seen: string[] = [];
  const latency = { filterLatency: (f: string) => void seen.push(f) };
  const authorizer = new UnionAuthorizer([new PrivilegedGroupsAuthorizer([GROUP_MASTERS])]);
  for (const user of [admin, bob]) {
    const ctx = newHandlerContext();
    resolveRequestInfo(ctx, 'GET', '/apis/events.cluster.io/v1/events');
    ctx.user = user;
    const filter = withAuthorization(async () => {}, authorizer, latency);
    await Promise.resolve()
      .then(() => filter(fakeRequest('GET', '/apis/events.cluster.io/v1/events'), fakeResponse(), ctx))
      .catch(() => {});
  }
  assert.deepEqual(seen, ['authorization']);
});
