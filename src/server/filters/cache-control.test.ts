import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHandlerContext } from '../handler.ts';
import { withCacheControl } from './cache-control.ts';
import { fakeRequest, fakeResponse } from './testing.ts';

test('withCacheControl: every answer after it is marked no-cache, private', async () => {
  const res = fakeResponse();
  let atHandler: unknown;
  await withCacheControl(async (_req, r) => void (atHandler = r.getHeader('cache-control')))(fakeRequest('GET', '/api'), res, newHandlerContext());
  assert.equal(atHandler, 'no-cache, private');
});
