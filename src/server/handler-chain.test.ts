/**
 * The order of the chain, seen from outside: a request that every filter would refuse gets the answer of the
 * first one, and fixing one cause at a time shows the next (400 malformed URL, 401, 404, 400 ?timeout=, 429, 403).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type AuthenticationResult, NO_CREDENTIALS } from '../auth/authenticator/interface.ts';
import type { UserInfo } from '../auth/authenticator/user.ts';
import type { AuthorizationResult } from '../auth/authorizer/interface.ts';
import { log } from '../util/log.ts';
import { MaxInflight } from './filters/maxinflight.ts';
import { type FakeResponse, fakeRequest, fakeResponse } from './filters/testing.ts';
import { type Handler, type HandlerContext, newHandlerContext } from './handler.ts';
import { buildHandlerChain, type HandlerChainConfig } from './handler-chain.ts';

let logged = '';
before(() => log.setOutput({ write: (s: string) => void (logged += s) }));
after(() => log.setOutput(2));

const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
const BASE = '/apis/events.cluster.io/v1';

/** A chain whose authenticator, authorizer and limits answer as set; its API handler answers 200 "served". */
function chain(opts: { user?: UserInfo | null; decision?: AuthorizationResult['decision']; saturated?: boolean; api?: Handler }) {
  const seen: HandlerContext[] = [];
  const authn: AuthenticationResult = opts.user ? { user: opts.user } : NO_CREDENTIALS;
  const maxInFlight = new MaxInflight(1, 1);
  if (opts.saturated) {
    maxInFlight.acquire('get');
    maxInFlight.acquire('create');
  }
  const config: HandlerChainConfig = {
    authenticator: { authenticate: () => authn },
    authorizer: { authorize: () => ({ decision: opts.decision ?? 'Allow', reason: '' }) },
    maxInFlight,
    requestTimeoutMs: 60_000,
  };
  const api: Handler =
    opts.api ??
    (async (_req, res, ctx) => {
      seen.push(ctx);
      res.writeHead(200);
      res.end('served');
    });
  const handler = buildHandlerChain(api, config);
  return {
    seen,
    async send(method: string, path: string): Promise<FakeResponse> {
      const res = fakeResponse();
      await handler(fakeRequest(method, path), res, newHandlerContext());
      return res;
    },
  };
}

const statusOf = (res: FakeResponse) => res.written.status;
const messageOf = (res: FakeResponse) => (JSON.parse(res.written.body) as { message: string }).message;

describe('buildHandlerChain', () => {
  it('answers in the order 400 (URL), 401, 404 (path), 400 (?timeout=), 429, 403', async () => {
    const everythingWrong = { user: null, decision: 'Deny', saturated: true } as const;
    let res = await chain(everythingWrong).send('POST', `${BASE}/namespaces/%zz/events`);
    assert.equal(statusOf(res), 400);
    assert.equal(messageOf(res), `invalid URL escape in path: ${BASE}/namespaces/%zz/events`);
    assert.equal(res.written.headers['cache-control'], undefined, 'the URL is parsed before Cache-Control is set');

    res = await chain(everythingWrong).send('POST', '/api/v1/watch?timeout=soon');
    assert.equal(statusOf(res), 401);
    assert.equal(res.written.headers['cache-control'], 'no-cache, private');

    const authenticated = { ...everythingWrong, user: bob };
    res = await chain(authenticated).send('POST', '/api/v1/watch?timeout=soon');
    assert.equal(statusOf(res), 404);
    assert.equal(JSON.parse(res.written.body).reason, 'NotFound');

    res = await chain(authenticated).send('POST', `${BASE}/namespaces/ns/events?timeout=soon`);
    assert.equal(statusOf(res), 400);
    assert.equal(messageOf(res), 'invalid timeout specified in the request URL');

    res = await chain(authenticated).send('POST', `${BASE}/namespaces/ns/events?timeout=5s`);
    assert.equal(statusOf(res), 429);
    assert.equal(res.written.body, 'Too many requests, please try again later.\n');

    res = await chain({ ...authenticated, saturated: false }).send('POST', `${BASE}/namespaces/ns/events`);
    assert.equal(statusOf(res), 403);
    assert.equal(messageOf(res), 'events.events.cluster.io is forbidden: User "bob" cannot create resource "events" in API group "events.cluster.io" in the namespace "ns"');

    const allowed = chain({ user: bob });
    res = await allowed.send('POST', `${BASE}/namespaces/ns/events`);
    assert.equal(statusOf(res), 200);
    assert.equal(res.written.body, 'served');
    assert.equal(res.written.headers['cache-control'], 'no-cache, private');
    assert.equal(allowed.seen[0]!.user, bob);
    assert.equal(allowed.seen[0]!.requestInfo?.verb, 'create');
  });

  it('serves the public paths to anonymous users without limits or authorization; without a user, 401', async () => {
    const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    const c = chain({ user: anonymous, decision: 'Deny', saturated: true });
    const res = await c.send('GET', '/readyz');
    assert.equal(statusOf(res), 200);
    assert.equal(c.seen[0]!.user, anonymous);
    // a single check is not public: limited (here saturated), then authorized
    assert.equal(statusOf(await c.send('GET', '/readyz/sqlite')), 429);
    // --anonymous-auth=false: nothing is public any more, as upstream
    assert.equal(statusOf(await chain({ user: null }).send('GET', '/readyz')), 401);
  });

  it('lets watches past a saturated limit and the deadline', async () => {
    const c = chain({ user: bob, saturated: true });
    assert.equal(statusOf(await c.send('GET', `${BASE}/events?watch=1&timeout=soon`)), 200);
  });

  it('turns what the API handler throws into its answer, and its late errors into post-timeout activity', async () => {
    logged = '';
    const throwing = chain({
      user: bob,
      api: async () => {
        throw new Error('bug');
      },
    });
    assert.equal(statusOf(await throwing.send('GET', `${BASE}/events`)), 500);
    log.flush();
    assert.match(logged, /"Unhandled error"/);
    logged = '';
    const late = chain({
      user: bob,
      api: async (_req, res) => {
        await new Promise((r) => setTimeout(r, 50));
        res.writeHead(200);
      },
    });
    const res = await late.send('DELETE', `${BASE}/namespaces/ns/events?timeout=5ms`);
    assert.equal(statusOf(res), 504);
    log.flush();
    assert.doesNotMatch(logged, /Unhandled error/);
  });
});
