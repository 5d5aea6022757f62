import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { type AuthenticationResult, type Authenticator, type AuthenticatorRequest, NO_CREDENTIALS } from './interface.ts';
import { UnionAuthenticator } from './union.ts';
import type { UserInfo } from './user.ts';

const req: AuthenticatorRequest = { headers: {}, socket: {} as Socket };
const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };

/** An authenticator that records its calls and answers `r` (after a tick when `async`). */
function fake(r: AuthenticationResult | (() => never), calls: string[], name: string, async = false): Authenticator {
  return {
    authenticate() {
      calls.push(name);
      const answer = () => (typeof r === 'function' ? r() : r);
      return async ? new Promise<void>((resolve) => setImmediate(resolve)).then(answer) : answer();
    },
  };
}
const refused = (msg: string): AuthenticationResult => ({ user: null, error: new Error(msg) });

test('union authenticator: the first success wins and later authenticators are not asked', () => {
  const calls: string[] = [];
  const u = new UnionAuthenticator([fake(NO_CREDENTIALS, calls, 'a'), fake(refused('bad token'), calls, 'b'), fake({ user: alice }, calls, 'c'), fake({ user: bob }, calls, 'd')]);
  const r = u.authenticate(req);
  assert.ok(!(r instanceof Promise), 'synchronous authenticators give a synchronous answer');
  assert.equal(r.user, alice);
  assert.deepEqual(calls, ['a', 'b', 'c']);
});

test('union authenticator: without a success, the failures are aggregated; without failures, no credentials', () => {
  const calls: string[] = [];
  const failed = new UnionAuthenticator([fake(refused('x509: bad'), calls, 'a'), fake(NO_CREDENTIALS, calls, 'b'), fake(refused('token: bad'), calls, 'c')]).authenticate(req);
  assert.ok(!(failed instanceof Promise));
  assert.equal(failed.user, null);
  assert.equal(failed.error?.message, '[x509: bad, token: bad]');
  assert.deepEqual(calls, ['a', 'b', 'c']);
  const one = new UnionAuthenticator([fake(refused('x509: bad'), [], 'a'), fake(NO_CREDENTIALS, [], 'b')]).authenticate(req);
  assert.equal((one as AuthenticationResult).error?.message, 'x509: bad');
  assert.equal(new UnionAuthenticator([fake(NO_CREDENTIALS, [], 'a'), fake(NO_CREDENTIALS, [], 'b')]).authenticate(req), NO_CREDENTIALS);
  assert.equal(new UnionAuthenticator([]).authenticate(req), NO_CREDENTIALS);
});

test('union authenticator: an authenticator that throws counts as a failure, and the next one is still asked', () => {
  const calls: string[] = [];
  const boom = () => {
    throw new Error('webhook down');
  };
  const r = new UnionAuthenticator([fake(boom, calls, 'a'), fake({ user: bob }, calls, 'b')]).authenticate(req);
  assert.equal((r as AuthenticationResult).user, bob);
  const failed = new UnionAuthenticator([fake(boom, calls, 'a'), fake(NO_CREDENTIALS, calls, 'b')]).authenticate(req);
  assert.equal((failed as AuthenticationResult).error?.message, 'webhook down');
});

test('union authenticator: asynchronous authenticators are awaited in order, with the same semantics', async () => {
  const calls: string[] = [];
  const mixed = new UnionAuthenticator([
    fake(refused('x509: bad'), calls, 'a'),
    fake(NO_CREDENTIALS, calls, 'b', true),
    fake(() => {
      throw new Error('webhook down');
    }, calls, 'c', true),
    fake({ user: alice }, calls, 'd', true),
    fake({ user: bob }, calls, 'e'),
  ]);
  const pending = mixed.authenticate(req);
  assert.ok(pending instanceof Promise);
  assert.equal((await pending).user, alice);
  assert.deepEqual(calls, ['a', 'b', 'c', 'd']);
  const failed = await new UnionAuthenticator([fake(refused('one'), [], 'a', true), fake(refused('two'), [], 'b'), fake(NO_CREDENTIALS, [], 'c', true)]).authenticate(req);
  assert.equal(failed.user, null);
  assert.equal(failed.error?.message, '[one, two]');
  assert.equal(await new UnionAuthenticator([fake(NO_CREDENTIALS, [], 'a', true)]).authenticate(req), NO_CREDENTIALS);
});
