import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newBadRequest } from '../../apimachinery/errors.ts';
import { log } from '../../util/log.ts';
import { newHandlerContext } from '../handler.ts';
import { withPanicRecovery } from './panic-recovery.ts';
import { fakeRequest, fakeResponse } from './testing.ts';

let logged = '';
before(() => log.setOutput({ write: (s: string) => void (logged += s) }));
after(() => log.setOutput(2));

test('withPanicRecovery: a StatusError, thrown or rejected, becomes its Status', async () => {
  for (const h of [
    async () => {
      throw newBadRequest('bad');
    },
    () => {
      throw newBadRequest('bad');
    },
  ]) {
    const res = fakeResponse();
    await withPanicRecovery(h as never)(fakeRequest('GET', '/x'), res, newHandlerContext());
    assert.equal(res.written.status, 400);
    assert.equal(JSON.parse(res.written.body).message, 'bad');
  }
});

test('withPanicRecovery: anything else is a 500, logged as unhandled; after the headers, the response is cut off', async () => {
  logged = '';
  let res = fakeResponse();
  await withPanicRecovery(async () => {
    throw new TypeError('boom');
  })(fakeRequest('GET', '/x'), res, newHandlerContext());
  assert.equal(res.written.status, 500);
  log.flush();
  assert.match(logged, /"Unhandled error" err=<\n\tTypeError: boom\n/);
  res = fakeResponse();
  await withPanicRecovery(async (_req, r) => {
    r.writeHead(200);
    throw newBadRequest('too late');
  })(fakeRequest('GET', '/x'), res, newHandlerContext());
  assert.equal(res.written.status, 200);
  assert.equal(res.written.destroyed, true);
});
