import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../apimachinery/errors.ts';
import { type HandlerContext, newHandlerContext } from '../handler.ts';
import { requestInfoOf, resolveRequestInfo, withRequestInfo } from './request-info.ts';
import { fakeRequest, fakeResponse } from './testing.ts';

test('withRequestInfo: parses the target once for everything after it', async () => {
  let seen: HandlerContext | undefined;
  const h = withRequestInfo(async (_req, _res, ctx) => void (seen = ctx));
  await h(fakeRequest('GET', '/apis/events.cluster.io/v1/namespaces/ns/events?limit=5'), fakeResponse(), newHandlerContext());
  assert.equal(seen!.pathname, '/apis/events.cluster.io/v1/namespaces/ns/events');
  assert.equal(seen!.query.get('limit'), '5');
  assert.equal(seen!.publicPath, false);
  const info = requestInfoOf(seen!);
  assert.equal(info.verb, 'list');
  assert.equal(info.namespace, 'ns');
  // percent-encoded and dot-segment targets go through URL parsing, as Go's URL.Path
  const ctx = newHandlerContext();
  resolveRequestInfo(ctx, 'GET', '/apis/events.cluster.io/v1/namespaces/n%73/events/a%20b');
  assert.equal(ctx.pathname, '/apis/events.cluster.io/v1/namespaces/ns/events/a b');
  assert.equal(requestInfoOf(ctx).name, 'a b');
  resolveRequestInfo(ctx, 'GET', '/healthz');
  assert.equal(ctx.publicPath, true);
  resolveRequestInfo(ctx, 'POST', '/healthz');
  assert.equal(ctx.publicPath, false);
});

test('withRequestInfo: a malformed escape is a 400 before the next handler runs', () => {
  let called = false;
  const h = withRequestInfo(async () => void (called = true));
  assert.throws(
    () => h(fakeRequest('GET', '/apis/events.cluster.io/v1/namespaces/%zz/events'), fakeResponse(), newHandlerContext()),
    (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'invalid URL escape in path: /apis/events.cluster.io/v1/namespaces/%zz/events',
  );
  assert.equal(called, false);
});

test('requestInfoOf: an unparsable path is a 404 for the first filter that needs its attributes', async () => {
  let seen: HandlerContext | undefined;
  const h = withRequestInfo(async (_req, _res, ctx) => void (seen = ctx));
  await h(fakeRequest('GET', '/api/v1/watch'), fakeResponse(), newHandlerContext());
  assert.equal(seen!.requestInfo, undefined);
  assert.throws(() => requestInfoOf(seen!), (e: unknown) => e instanceof StatusError && e.code === 404 && e.reason === 'NotFound');
  assert.throws(() => requestInfoOf(newHandlerContext()), /withRequestInfo is not in the handler chain/);
});
