import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { log } from '../../util/log.ts';
import { newHandlerContext } from '../handler.ts';
import { withHTTPLogging } from './http-logging.ts';
import { fakeRequest, fakeResponse } from './testing.ts';

let logged = '';
before(() => log.setOutput({ write: (s: string) => void (logged += s) }));
after(() => {
  log.setVerbosity(0);
  log.setOutput(2);
});

const answer = withHTTPLogging(async (_req, res) => {
  res.writeHead(201);
  res.end();
});

test('withHTTPLogging: at -v=3 one line per request once its response closes', async () => {
  log.setVerbosity(3);
  logged = '';
  const res = fakeResponse();
  await answer(fakeRequest('POST', '/apis/x?y=1', { 'user-agent': 'kubectl' }), res, newHandlerContext());
  await res.closed;
  log.flush();
  assert.match(logged, /"HTTP" verb="POST" URI="\/apis\/x\?y=1" latency="[\d.e-]+ms" userAgent="kubectl" resp=201\n$/);
});

test('withHTTPLogging: below -v=3 nothing is logged and nothing is listened for', async () => {
  log.setVerbosity(2);
  logged = '';
  const res = fakeResponse();
  await answer(fakeRequest('POST', '/apis/x'), res, newHandlerContext());
  assert.equal(res.listenerCount('close'), 1, "only the fake's own");
  await res.closed;
  log.flush();
  assert.equal(logged, '');
});
