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

  test(`withAuthentication (${label} authenticator): no user is a 401, on every path`, async () => {
    let r = await run(make(NO_CREDENTIALS), 'GET', '/apis/events.cluster.io/v1/events');
    assert.ok(isUnauthorized(r.error));
    assert.equal(r.ctx, undefined);
    // the public paths are public to system:anonymous (the anonymous authenticator names it); without it, 401
    r = await run(make(NO_CREDENTIALS), 'GET', '/readyz');
    assert.ok(isUnauthorized(r.error));
    // a refused credential is a 401 even there, as upstream
    r = await run(make({ user: null, error: new Error('verifying certificate failed') }), 'GET', '/version');
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
    await withAuthentication(async () => {}, a, { latency })(fakeRequest('GET', '/apis/events.cluster.io/v1/events'), fakeResponse(), ctx).catch(() => {});
  }
  assert.deepEqual(seen, ['authentication true', 'authentication true']);
});

test('withAuthentication: once authenticated, the credential and every front-proxy header are removed', async () => {
  const headers = {
    authorization: 'Bearer secret',
    'x-remote-user': 'mallory',
    'x-remote-group': 'system:masters',
    'x-remote-extra-scopes': 'x',
    'x-proxy-user': 'eve',
    'x-proxy-extra-a': 'b',
    accept: 'application/json',
  };
  const rawHeaders = Object.entries(headers).flatMap(([k, v]) => [k.toUpperCase(), v]);
  const req = Object.assign(fakeRequest('GET', '/api', { ...headers }), { rawHeaders });
  const ctx = newHandlerContext();
  resolveRequestInfo(ctx, 'GET', '/api');
  let seen: Record<string, unknown> | undefined;
  const configured = { usernameHeaders: ['X-Proxy-User'], uidHeaders: [], groupHeaders: [], extraHeaderPrefixes: ['X-Proxy-Extra-'] };
  await withAuthentication(async (r) => void (seen = { ...r.headers }), answers({ user: alice }), { requestHeaders: configured })(req, fakeResponse(), ctx);
  assert.deepEqual(seen, { accept: 'application/json' });
  assert.deepEqual(rawHeaders, ['ACCEPT', 'application/json']);
});

test('withAuthentication: authenticator warnings go out with the answer, a 401 included; attempts are recorded', async () => {
  const { addAuthenticationWarning } = await import('../../auth/authenticator/interface.ts');
  const warning: Authenticator = {
    authenticate(req) {
      addAuthenticationWarning(req, 'be careful');
      return NO_CREDENTIALS;
    },
  };
  const recorded: string[] = [];
  const metrics = { authenticated: (result: string, s: number, user: string | undefined) => void recorded.push(`${result} ${s >= 0} ${user}`) };
  const res = fakeResponse();
  const ctx = newHandlerContext();
  resolveRequestInfo(ctx, 'GET', '/api');
  await assert.rejects(async () => withAuthentication(async () => {}, warning, { metrics })(fakeRequest('GET', '/api'), res, ctx), isUnauthorized);
  assert.deepEqual(res.written.headers['warning'], ['299 - "be careful"']);
  const ctx2 = newHandlerContext();
  resolveRequestInfo(ctx2, 'GET', '/api');
  await withAuthentication(async () => {}, answers({ user: alice }), { metrics })(fakeRequest('GET', '/api'), fakeResponse(), ctx2);
  await assert.rejects(async () => withAuthentication(async () => {}, answers({ user: null, error: new Error('bad') }), { metrics })(fakeRequest('GET', '/api'), fakeResponse(), ctx2), isUnauthorized);
  assert.deepEqual(recorded, ['failure true undefined', 'success true alice', 'error true undefined']);
});
