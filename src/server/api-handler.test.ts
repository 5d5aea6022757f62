import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../apimachinery/errors.ts';
import type { UserInfo } from '../auth/authenticator/user.ts';
import { type PathHandler, newAPIHandler } from './api-handler.ts';
import { resolveRequestInfo } from './filters/request-info.ts';
import { fakeRequest, fakeResponse } from './filters/testing.ts';
import { newHandlerContext } from './handler.ts';
import { HealthChecks } from './healthz.ts';

const alice: UserInfo = { name: 'alice', groups: ['system:masters'] };

test('newAPIHandler: health, then the path handlers in order, then the 404s', async () => {
  const users: (UserInfo | null)[] = [];
  const version: PathHandler = (_req, res, pathname, _query, user) => {
    if (pathname !== '/version') return false;
    users.push(user);
    res.end('v');
    return true;
  };
  const discovery: PathHandler = async (_req, res, pathname) => {
    if (pathname !== '/apis') return false;
    res.end('groups');
    return true;
  };
  const api = newAPIHandler({ scopes: [], health: new HealthChecks(), pathHandlers: [version, discovery], servedPrefixes: ['/apis/events.cluster.io/v1'] });
  const send = async (path: string, user: UserInfo | null = alice) => {
    const ctx = newHandlerContext();
    resolveRequestInfo(ctx, 'GET', path);
    ctx.user = user;
    const res = fakeResponse();
    await api(fakeRequest('GET', path), res, ctx);
    await res.closed;
    return res.written;
  };
  assert.equal((await send('/healthz/ping')).body, 'ok');
  assert.equal((await send('/version', null)).body, 'v');
  assert.deepEqual(users, [null], 'path handlers get the user, null on a public path without credentials');
  assert.equal((await send('/apis')).body, 'groups');
  // unknown paths below a served group version: a Status 404; elsewhere upstream's plain text
  await assert.rejects(send('/apis/events.cluster.io/v1/namespaces/ns/widgets'), (e: unknown) => e instanceof StatusError && e.code === 404);
  await assert.rejects(send('/apis/events.cluster.io/v1/bogus'), (e: unknown) => e instanceof StatusError && e.code === 404);
  const other = await send('/nothing/here');
  assert.equal(other.status, 404);
  assert.equal(other.body, '404 page not found\n');
});
