import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../apimachinery/errors.ts';
import { type AuthenticationResult, type Authenticator, NO_CREDENTIALS } from '../../auth/authenticator/interface.ts';
import type { UserInfo } from '../../auth/authenticator/user.ts';
import { log } from '../../util/log.ts';
import { type Handler, type HandlerContext, newHandlerContext } from '../handler.ts';
import { withAuthentication } from './authentication.ts';
import { resolveRequestInfo } from './request-info.ts';
import { fakeRequest, fakeResponse } from './testing.ts';

let logged = '';
before(() => log.setOutput({ write: (s: string) => void (logged += s) }));
after(() => {
  log.setVerbosity(0);
  log.setOutput(2);
});

const alice: UserInfo = { name: 'alice', groups: ['system:masters', 'system:authenticated'] };
const answers = (r: AuthenticationResult): Authenticator => ({ authenticate: () => r });
const later = (r: AuthenticationResult): Authenticator => ({ authenticate: () => new Promise((resolve) => setImmediate(() => resolve(r))) });

/** Runs `path` through withAuthentication; what the next handler saw, or what was thrown. */
async function run(authenticator: Authenticator, method: string, path: string): Promise<{ ctx?: HandlerContext; error?: unknown; sync: boolean }> {
  let seen: HandlerContext | undefined;
  const next: Handler = async (_req, _res, ctx) => void (seen = ctx);
  const ctx = newHandlerContext();
  resolveRequestInfo(ctx, method, path);
  let p: Promise<void>;
  try {
    p = withAuthentication(next, authenticator)(fakeRequest(method, path), fakeResponse(), ctx);
  } catch (error) {
    return { error, sync: true };
  }
  try {
    await p;
  } catch (error) {
    return { error, sync: false };
  }
  return { ctx: seen, sync: false };
}

const isUnauthorized = (e: unknown) => e instanceof StatusError && e.code === 401 && e.message === 'Unauthorized';

for (const [label, make] of [['synchronous', answers], ['asynchronous', later]] as const) {
  test(`withAuthentication (${label} authenticator): the user goes into the context`, async () => {
    const r = await run(make({ user: alice }), 'GET', '/apis/events.cluster.io/v1/events');
    assert.equal(r.ctx?.user, alice);
    // a public path keeps the user too
    assert.equal((await run(make({ user: alice }), 'GET', '/healthz')).ctx?.user, alice);
  });

  test(`withAuthentication (${label} authenticator): no user is a 401, except on the public paths`, async () => {
    let r = await run(make(NO_CREDENTIALS), 'GET', '/apis/events.cluster.io/v1/events');
    assert.ok(isUnauthorized(r.error));
    assert.equal(r.ctx, undefined);
    r = await run(make(NO_CREDENTIALS), 'GET', '/readyz');
    assert.ok(r.ctx);
    assert.equal(r.ctx.user, null);
    // even with a refused credential, as before: upstream would 401 it
    r = await run(make({ user: null, error: new Error('verifying certificate failed') }), 'GET', '/version');
    assert.equal(r.ctx?.user, null);
    r = await run(make(NO_CREDENTIALS), 'POST', '/healthz');
    assert.ok(isUnauthorized(r.error));
  });
}

test('withAuthentication: a cached answer costs no promise hop; why a credential was refused is logged at -v=2', async () => {
  let r = await run(answers(NO_CREDENTIALS), 'GET', '/api');
  assert.equal(r.sync, true, 'the 401 is thrown synchronously');
  log.setVerbosity(2);
  logged = '';
  r = await run(answers({ user: null, error: new Error('verifying certificate SN=1 failed: CERT_HAS_EXPIRED') }), 'GET', '/api');
  assert.ok(isUnauthorized(r.error));
  log.flush();
  assert.match(logged, /"Unable to authenticate the request" err="verifying certificate SN=1 failed: CERT_HAS_EXPIRED"/);
});

test('withAuthentication: its latency is reported whether it hands the request on or answers 401', async () => {
  const seen: string[] = [];
  const latency = { filterLatency: (f: string, s: number) => void seen.push(`${f} ${s >= 0 && s < 1}`) };
  for (const a of [answers({ user: alice }), later(NO_CREDENTIALS)]) {
    const ctx = newHandlerContext();
    resolveRequestInfo(ctx, 'GET', '/apis/events.cluster.io/v1/events');
    await withAuthentication(async () => {}, a, latency)(fakeRequest('GET', '/apis/events.cluster.io/v1/events'), fakeResponse(), ctx).catch(() => {});
  }
  assert.deepEqual(seen, ['authentication true', 'authentication true']);
});
