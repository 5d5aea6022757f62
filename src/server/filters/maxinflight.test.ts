import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Handler, newHandlerContext } from '../handler.ts';
import { MaxInflight, isExemptFromMaxInFlight, isMutatingVerb, withMaxInFlightLimit } from './maxinflight.ts';
import { requestInfoOf, resolveRequestInfo } from './request-info.ts';
import { type FakeResponse, fakeRequest, fakeResponse } from './testing.ts';

describe('isMutatingVerb', () => {
  it('treats every verb but get, list and watch as mutating, as upstream does', () => {
    for (const v of ['get', 'list', 'watch']) assert.equal(isMutatingVerb(v), false, v);
    for (const v of ['create', 'update', 'patch', 'delete', 'deletecollection', 'post', 'put', 'head', 'options']) assert.equal(isMutatingVerb(v), true, v);
  });
});

describe('MaxInflight', () => {
  it('admits up to the limit, refuses beyond it and admits again after a release', () => {
    const m = new MaxInflight(2, 1);
    assert.equal(m.saturated, false);
    const w = m.acquire('create');
    assert.ok(w);
    assert.equal(m.full('patch'), true);
    assert.equal(m.saturated, true);
    assert.equal(m.acquire('delete'), undefined);
    assert.equal(m.full('get'), false, 'the read-only limit is separate');
    const r1 = m.acquire('get');
    const r2 = m.acquire('list');
    assert.ok(r1 && r2);
    assert.equal(m.acquire('get'), undefined);
    assert.deepEqual(m.counts, { readonly: 2, mutating: 1 });
    w();
    r1();
    assert.equal(m.full('create'), false);
    assert.equal(m.full('get'), false);
    assert.ok(m.acquire('update'));
    assert.deepEqual(m.counts, { readonly: 1, mutating: 1 });
  });

  it('treats 0 as no limit and never counts', () => {
    const m = new MaxInflight(0, 0);
    for (let i = 0; i < 1000; i++) {
      assert.ok(m.acquire('create'));
      assert.ok(m.acquire('get'));
    }
    assert.equal(m.saturated, false);
    assert.deepEqual(m.counts, { readonly: 0, mutating: 0 });
  });

  it('is saturated when either limit alone is reached', () => {
    const m = new MaxInflight(1, 0);
    m.acquire('get');
    assert.equal(m.saturated, true);
    assert.equal(m.full('create'), false);
  });
});

describe('withMaxInFlightLimit', () => {
  /** Sends `method path` through the filter; `hold` keeps the response open (the request stays counted). */
  async function send(limits: MaxInflight, method: string, path: string, refusals?: string[]): Promise<{ res: FakeResponse; served: boolean }> {
    let served = false;
    const next: Handler = async () => void (served = true);
    const ctx = newHandlerContext();
    resolveRequestInfo(ctx, method, path);
    const res = fakeResponse();
    const outcomes = refusals && {
      tooManyRequests: (m: string, _ct: string | undefined, info: { verb: string; resource: string }, q: URLSearchParams) => void refusals.push(`${m} ${info.verb} ${info.resource} ${q}`),
      terminated() {},
      aborted() {},
      postTimeout() {},
    };
    await withMaxInFlightLimit(next, limits, outcomes)(fakeRequest(method, path), res, ctx);
    return { res, served };
  }

  it('counts a request while its response is open and refuses the excess with the upstream 429', async () => {
    const limits = new MaxInflight(1, 1);
    const first = await send(limits, 'POST', '/apis/events.cluster.io/v1/namespaces/ns/events');
    assert.equal(first.served, true);
    assert.deepEqual(limits.counts, { readonly: 0, mutating: 1 });
    const refused = await send(limits, 'DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events/x');
    assert.equal(refused.served, false);
    assert.equal(refused.res.written.status, 429);
    assert.equal(refused.res.written.headers['retry-after'], '1');
    assert.equal(refused.res.written.body, 'Too many requests, please try again later.\n');
    assert.equal((await send(limits, 'GET', '/apis/events.cluster.io/v1/events')).served, true, 'the read-only limit is separate');
    first.res.end();
    await first.res.closed;
    assert.equal(limits.counts.mutating, 0);
    assert.equal((await send(limits, 'POST', '/apis/events.cluster.io/v1/namespaces/ns/events')).served, true);
  });

  it('reports each refusal (apiserver_request_total and _terminations_total count it)', async () => {
    const limits = new MaxInflight(1, 1);
    const refusals: string[] = [];
    await send(limits, 'POST', '/apis/events.cluster.io/v1/namespaces/ns/events', refusals);
    await send(limits, 'DELETE', '/apis/events.cluster.io/v1/namespaces/ns/events?dryRun=All', refusals);
    assert.deepEqual(refusals, ['DELETE deletecollection events dryRun=All']);
  });

  it('keeps the most requests counted at once until the watermarks are taken', async () => {
    const limits = new MaxInflight(5, 5);
    const a = await send(limits, 'GET', '/apis/events.cluster.io/v1/events');
    const b = await send(limits, 'GET', '/apis/events.cluster.io/v1/events');
    b.res.end();
    await b.res.closed;
    assert.deepEqual(limits.takeWatermarks(), { readonly: 2, mutating: 0 });
    assert.deepEqual(limits.takeWatermarks(), { readonly: 1, mutating: 0 }, 'the next period starts from the count of now');
    a.res.end();
  });

  it('exempts watches and the public paths, not system:masters', async () => {
    const limits = new MaxInflight(1, 1);
    await send(limits, 'GET', '/apis/events.cluster.io/v1/events');
    await send(limits, 'POST', '/apis/events.cluster.io/v1/namespaces/ns/events');
    assert.equal(limits.saturated, true);
    assert.equal((await send(limits, 'GET', '/apis/events.cluster.io/v1/events?watch=1')).served, true);
    assert.equal((await send(limits, 'GET', '/apis/events.cluster.io/v1/watch/events')).served, true);
    assert.equal((await send(limits, 'GET', '/readyz')).served, true);
    assert.equal((await send(limits, 'GET', '/version')).served, true);
    assert.equal((await send(limits, 'GET', '/readyz/sqlite')).served, false, 'a single check is not public');
    assert.equal((await send(limits, 'POST', '/healthz')).served, false);
    assert.deepEqual(limits.counts, { readonly: 1, mutating: 1 });
  });

  it('isExemptFromMaxInFlight: the rule the early HTTP/2 refusal shares', () => {
    const info = (method: string, path: string) => {
      const ctx = newHandlerContext();
      resolveRequestInfo(ctx, method, path);
      return requestInfoOf(ctx);
    };
    assert.equal(isExemptFromMaxInFlight(info('GET', '/apis/events.cluster.io/v1/events?watch=true'), false), true);
    assert.equal(isExemptFromMaxInFlight(info('GET', '/healthz'), true), true);
    assert.equal(isExemptFromMaxInFlight(info('GET', '/apis/events.cluster.io/v1/events'), false), false);
  });
});
