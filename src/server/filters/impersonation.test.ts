import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { StatusError } from '../../apimachinery/errors.ts';
import type { UserInfo } from '../../auth/authenticator/user.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../../auth/authorizer/interface.ts';
import { newHandlerContext } from '../handler.ts';
import { splitServiceAccountUsername, withImpersonation } from './impersonation.ts';
import { fakeRequest, fakeResponse } from './testing.ts';

const bob: UserInfo = { name: 'bob', groups: ['ops', 'system:authenticated'] };

/** An authorizer that records what it is asked and allows what `allow` says. */
function recording(allow: (a: Attributes) => boolean | AuthorizationResult) {
  const asked: Attributes[] = [];
  const authorizer: Authorizer = {
    authorize(a) {
      asked.push(a);
      const r = allow(a);
      return typeof r === 'boolean' ? { decision: r ? 'Allow' : 'NoOpinion', reason: '' } : r;
    },
  };
  return { asked, authorizer };
}

/** Runs the filter on a request with `raw` header lines; the user the next handler saw, or the error. */
async function run(authorizer: Authorizer, raw: [string, string][], requestor: UserInfo = bob): Promise<{ user?: UserInfo; error?: StatusError; headers?: IncomingHttpHeaders; rawHeaders?: string[] }> {
  const headers: IncomingHttpHeaders = {};
  for (const [n, v] of raw) {
    const k = n.toLowerCase();
    const prev = headers[k];
    headers[k] = prev === undefined ? v : `${prev}, ${v}`;
  }
  const req = fakeRequest('GET', '/api', headers);
  (req as { rawHeaders: string[] }).rawHeaders = raw.flat();
  const ctx = newHandlerContext();
  ctx.user = requestor;
  let seen: UserInfo | undefined;
  const h = withImpersonation(async (_r, _s, c) => void (seen = c.user ?? undefined), authorizer);
  try {
    await h(req, fakeResponse(), ctx);
  } catch (e) {
    if (e instanceof StatusError) return { error: e };
    throw e;
  }
  return { user: seen!, headers: req.headers, rawHeaders: req.rawHeaders };
}

describe('withImpersonation', () => {
  it('without impersonation headers the request goes on as its user, and nothing is asked', async () => {
    const { asked, authorizer } = recording(() => true);
    const r = await run(authorizer, [['Accept', 'application/json']]);
    assert.equal(r.user, bob);
    assert.equal(asked.length, 0);
  });

  it('a user, groups, extras and a uid: each asked with verb impersonate, as upstream names them', async () => {
    const { asked, authorizer } = recording(() => true);
    const r = await run(authorizer, [
      ['Impersonate-User', 'jane'],
      ['Impersonate-Group', 'dev'],
      ['impersonate-group', 'qa'],
      ['Impersonate-Extra-Scopes', 'view'],
      ['Impersonate-Extra-Scopes', 'edit'],
      ['Impersonate-Extra-Example.com%2Fteam', 'a'],
      ['Impersonate-Uid', 'j-1'],
    ]);
    const brief = asked.map((a) => [a.verb, a.apiGroup, a.resource, a.subresource, a.namespace, a.name, a.user.name]);
    assert.deepEqual(brief, [
      ['impersonate', '', 'users', '', '', 'jane', 'bob'],
      ['impersonate', '', 'groups', '', '', 'dev', 'bob'],
      ['impersonate', '', 'groups', '', '', 'qa', 'bob'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'scopes', '', 'view', 'bob'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'scopes', '', 'edit', 'bob'],
      ['impersonate', 'authentication.k8s.io', 'userextras', 'example.com/team', '', 'a', 'bob'],
      ['impersonate', 'authentication.k8s.io', 'uids', '', '', 'j-1', 'bob'],
    ]);
    assert.deepEqual(r.user, { name: 'jane', uid: 'j-1', groups: ['dev', 'qa', 'system:authenticated'], extra: { scopes: ['view', 'edit'], 'example.com/team': ['a'] } });
    // The headers are gone for everything after the filter.
    assert.deepEqual(Object.keys(r.headers!), []);
    assert.deepEqual(r.rawHeaders, []);
  });

  it('a user alone is in system:authenticated only; system:unauthenticated named keeps it out; anonymous is unauthenticated', async () => {
    const { authorizer } = recording(() => true);
    assert.deepEqual((await run(authorizer, [['Impersonate-User', 'jane']])).user, { name: 'jane', groups: ['system:authenticated'], extra: {} });
    assert.deepEqual((await run(authorizer, [['Impersonate-User', 'jane'], ['Impersonate-Group', 'system:unauthenticated']])).user!.groups, ['system:unauthenticated']);
    assert.deepEqual((await run(authorizer, [['Impersonate-User', 'system:anonymous']])).user!.groups, ['system:unauthenticated']);
  });

  it('a service account: asked as serviceaccounts in its namespace, with its groups unless groups are named', async () => {
    const { asked, authorizer } = recording(() => true);
    const r = await run(authorizer, [['Impersonate-User', 'system:serviceaccount:a:robot']]);
    assert.deepEqual([asked[0]!.resource, asked[0]!.namespace, asked[0]!.name, asked[0]!.apiGroup], ['serviceaccounts', 'a', 'robot', '']);
    assert.deepEqual(r.user, { name: 'system:serviceaccount:a:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:a', 'system:authenticated'], extra: {} });
    const named = await run(authorizer, [['Impersonate-User', 'system:serviceaccount:a:robot'], ['Impersonate-Group', 'g']]);
    assert.deepEqual(named.user!.groups, ['g', 'system:authenticated']);
    // Not a valid service account name: an ordinary user of that name.
    assert.equal(splitServiceAccountUsername('system:serviceaccount:A:robot'), undefined);
    assert.equal(splitServiceAccountUsername('system:serviceaccount:a:b:c'), undefined);
    assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:a:robot.x'), { namespace: 'a', name: 'robot.x' });
  });

  it('refused: 403 with upstream\'s text for the first thing not allowed, the authorizer\'s reason appended', async () => {
    const { authorizer } = recording((a) => a.resource === 'users' || (a.resource === 'groups' && a.name !== 'admins'));
    let r = await run(authorizer, [['Impersonate-User', 'jane'], ['Impersonate-Group', 'dev'], ['Impersonate-Group', 'admins']]);
    assert.equal(r.error!.code, 403);
    assert.equal(r.error!.message, 'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
    const none = recording(() => ({ decision: 'NoOpinion', reason: 'no binding' }));
    r = await run(none.authorizer, [['Impersonate-User', 'system:serviceaccount:kube:robot']]);
    assert.equal(r.error!.message, 'serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube": no binding');
    r = await run(none.authorizer, [['Impersonate-User', 'jane']]);
    assert.deepEqual(r.error!.toStatus().details, { name: 'jane', kind: 'users' });
    const extras = recording((a) => a.resource !== 'userextras');
    r = await run(extras.authorizer, [['Impersonate-User', 'jane'], ['Impersonate-Extra-Scopes', 'all']]);
    assert.equal(r.error!.message, 'userextras.authentication.k8s.io "all" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    // An authorizer error refuses too (403, as upstream: the impersonation was not shown to be allowed).
    const failing = recording(() => ({ decision: 'NoOpinion', reason: '', error: new Error('webhook down') }));
    assert.equal((await run(failing.authorizer, [['Impersonate-User', 'jane']])).error!.code, 403);
  });

  it('groups, extras or a uid without a user: 400 listing what was asked, in Go\'s %v of the references', async () => {
    const { asked, authorizer } = recording(() => true);
    let r = await run(authorizer, [['Impersonate-Group', 'g']]);
    assert.equal(r.error!.code, 400);
    assert.equal(r.error!.message, 'requested [{Group  g    }] without impersonating a user');
    r = await run(authorizer, [['Impersonate-Extra-Scopes', 'v'], ['Impersonate-Uid', 'u1']]);
    assert.equal(r.error!.message, 'requested [{UserExtra  v  authentication.k8s.io/v1  scopes} {UID  u1  authentication.k8s.io/v1  }] without impersonating a user');
    // An empty Impersonate-User is no user.
    r = await run(authorizer, [['Impersonate-User', ''], ['Impersonate-Group', 'g']]);
    assert.equal(r.error!.code, 400);
    assert.equal(asked.length, 0);
  });
});

test('filter latency: recorded for every request handed on (impersonating or not), not for a refusal', async () => {
  const seen: string[] = [];
  const latency = { filterLatency: (f: string, s: number) => void seen.push(`${f} ${s >= 0 && s < 1}`) };
  const h = withImpersonation(async () => {}, { authorize: (a) => ({ decision: a.name === 'jane' ? 'Allow' : 'NoOpinion', reason: '' }) }, latency);
  const call = async (headers: IncomingHttpHeaders) => {
    const ctx = newHandlerContext();
    ctx.user = bob;
    await h(fakeRequest('GET', '/api', headers), fakeResponse(), ctx).catch(() => {});
  };
  await call({});
  await call({ 'impersonate-user': 'jane' });
  await call({ 'impersonate-user': 'joe' });
  assert.deepEqual(seen, ['impersonation true', 'impersonation true']);
});
