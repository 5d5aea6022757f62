import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, newBadRequest } from '../../apimachinery/errors.ts';
import { log } from '../../util/log.ts';
import { type Handler, newHandlerContext } from '../handler.ts';
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

function run(handler: Handler, path: string, requestTimeoutMs: number, res: FakeResponse = fakeResponse()): Promise<void> {
  const ctx = newHandlerContext();
  resolveRequestInfo(ctx, 'GET', path);
  return withRequestDeadline(handler, requestTimeoutMs)(fakeRequest('GET', path), res, ctx);
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
