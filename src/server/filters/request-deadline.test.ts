import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, newBadRequest } from '../../apimachinery/errors.ts';
import { log } from '../../util/log.ts';
import { type Handler, newHandlerContext } from '../handler.ts';
import type { FilterOutcomes } from './filter-latency.ts';
import { requestDeadlineMs, withRequestDeadline } from './request-deadline.ts';
import { resolveRequestInfo } from './request-info.ts';
import { type FakeResponse, fakeRequest, fakeResponse } from './testing.ts';

let logged = '';
before(() => log.setOutput({ write: (s: string) => void (logged += s) }));
after(() => {
  log.setVerbosity(0);
  log.setOutput(2);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function run(handler: Handler, path: string, requestTimeoutMs: number, res: FakeResponse = fakeResponse(), outcomes?: FilterOutcomes): Promise<void> {
  const ctx = newHandlerContext();
  resolveRequestInfo(ctx, 'GET', path);
  return withRequestDeadline(handler, requestTimeoutMs, outcomes)(fakeRequest('GET', path), res, ctx);
}

/** Records what the filter reports, as `name:detail` strings. */
function recorder(): FilterOutcomes & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    tooManyRequests: (m, _ct, info) => void seen.push(`429:${m} ${info.resource}`),
    terminated: (m, _ct, info, code) => void seen.push(`terminated:${m} ${info.resource} ${code}`),
    aborted: (m, _ct, info) => void seen.push(`aborted:${m} ${info.resource}`),
    postTimeout: (source, status) => void seen.push(`post-timeout:${source} ${status}`),
  };
}

test('requestDeadlineMs: --request-timeout, shortened by a valid ?timeout=, never lengthened', () => {
  assert.equal(requestDeadlineMs(new URLSearchParams(''), 60_000), 60_000);
  assert.equal(requestDeadlineMs(new URLSearchParams('timeout=5s'), 60_000), 5000);
  assert.equal(requestDeadlineMs(new URLSearchParams('timeout=2m'), 60_000), 60_000);
  assert.equal(requestDeadlineMs(new URLSearchParams('timeout=1m30s'), 0), 90_000);
  assert.equal(requestDeadlineMs(new URLSearchParams('timeout=0s'), 60_000), 60_000);
  assert.equal(requestDeadlineMs(new URLSearchParams('timeout=-1s'), 0), 0);
  assert.throws(
    () => requestDeadlineMs(new URLSearchParams('timeout=soon'), 60_000),
    (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'invalid timeout specified in the request URL',
  );
});

test('withRequestDeadline: 504 when the handler has not answered in time; its late error is post-timeout activity', async () => {
  log.setVerbosity(2);
  logged = '';
  const res = fakeResponse();
  await run(
    async (_req, r) => {
      await sleep(60);
      r.writeHead(200); // too late: the deadline answered
    },
    '/apis/events.cluster.io/v1/namespaces/ns/events?timeout=10ms',
    60_000,
    res,
  );
  assert.equal(res.written.status, 504);
  assert.deepEqual(JSON.parse(res.written.body), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Timeout: request did not complete within the allotted timeout',
    reason: 'Timeout',
    details: {},
    code: 504,
  });
  log.flush();
  assert.match(logged, /"post-timeout activity" URI="\/apis\/events.cluster.io\/v1\/namespaces\/ns\/events\?timeout=10ms" err="Cannot write headers after they are sent to the client"/);
  assert.doesNotMatch(logged, /Unhandled error/);
});

test('withRequestDeadline: errors in time go on to the caller; watches and no limit get no timer', async () => {
  await assert.rejects(
    run(async () => {
      throw newBadRequest('mine');
    }, '/apis/events.cluster.io/v1/events', 60_000),
    /mine/,
  );
  for (const [path, timeout] of [
    ['/apis/events.cluster.io/v1/events?watch=1&timeout=1ms', 60_000],
    ['/apis/events.cluster.io/v1/events', 0],
  ] as const) {
    const res = fakeResponse();
    await run(
      async (_req, r) => {
        await sleep(20);
        r.writeHead(200);
        r.end();
      },
      path,
      timeout,
      res,
    );
    assert.equal(res.written.status, 200, path);
  }
  // a watch is not checked for ?timeout= either: it has timeoutSeconds
  await run(async () => {}, '/apis/events.cluster.io/v1/events?watch=1&timeout=soon', 60_000);
  await assert.rejects(run(async () => {}, '/apis/events.cluster.io/v1/events?timeout=soon', 60_000), /invalid timeout/);
});

test('withRequestDeadline: the timer ends with the response', async () => {
  const res = fakeResponse();
  await run(
    async (_req, r) => {
      r.writeHead(200);
      r.end();
    },
    '/apis/events.cluster.io/v1/events?timeout=30ms',
    60_000,
    res,
  );
  await res.closed;
  await sleep(50);
  assert.equal(res.written.status, 200);
  assert.equal(res.written.destroyed, false);
});

test('withRequestDeadline: a 504 is a termination, and what the handler did afterwards is counted', async () => {
  const o = recorder();
  await run(
    async (_req, r) => {
      await sleep(40);
      r.writeHead(200); // throws: the deadline answered
    },
    '/apis/events.cluster.io/v1/namespaces/ns/events?timeout=5ms',
    60_000,
    fakeResponse(),
    o,
  );
  assert.deepEqual(o.seen, ['terminated:GET events 504', 'post-timeout:timeout-handler panic']);
  const quiet = recorder();
  await run(async () => void (await sleep(40)), '/apis/events.cluster.io/v1/events?timeout=5ms', 60_000, fakeResponse(), quiet);
  assert.deepEqual(quiet.seen, ['terminated:GET events 504', 'post-timeout:timeout-handler ok']);
});

test('withRequestDeadline: a response already under way when the deadline passes is cut off and counted as aborted', async () => {
  const o = recorder();
  const res = fakeResponse();
  await run(
    async (_req, r) => {
      r.writeHead(200);
      r.write('{"items":[');
      await sleep(40);
    },
    '/apis/events.cluster.io/v1/events?timeout=5ms',
    60_000,
    res,
    o,
  );
  assert.equal(res.written.status, 200);
  assert.equal(res.written.destroyed, true);
  assert.deepEqual(o.seen, ['terminated:GET events 504', 'aborted:GET events', 'post-timeout:timeout-handler ok']);
});
