import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Attributes, type AuthorizationResult, type Authorizer, NO_OPINION } from './interface.ts';
import { UnionAuthorizer } from './union.ts';

const attrs: Attributes = {
  user: { name: 'bob', groups: ['system:authenticated'] },
  verb: 'get',
  namespace: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  name: '',
  path: '/metrics',
  isResourceRequest: false,
};

/** An authorizer that records its calls and answers `r` (after a tick when `async`). */
function fake(r: AuthorizationResult | (() => never), calls: string[], name: string, async = false): Authorizer {
  return {
    authorize() {
      calls.push(name);
      const answer = () => (typeof r === 'function' ? r() : r);
      return async ? new Promise<void>((resolve) => setImmediate(resolve)).then(answer) : answer();
    },
  };
}
const abstain = (reason: string, error?: Error): AuthorizationResult => ({ decision: 'NoOpinion', reason, error });
const deny: AuthorizationResult = { decision: 'Deny', reason: 'not you' };
const allow: AuthorizationResult = { decision: 'Allow', reason: 'rbac' };

test('union authorizer: the first Allow or Deny wins, NoOpinion goes on', () => {
  let calls: string[] = [];
  let r = new UnionAuthorizer([fake(NO_OPINION, calls, 'a'), fake(deny, calls, 'b'), fake(allow, calls, 'c')]).authorize(attrs);
  assert.ok(!(r instanceof Promise), 'synchronous authorizers give a synchronous answer');
  assert.equal(r, deny);
  assert.deepEqual(calls, ['a', 'b']);
  calls = [];
  r = new UnionAuthorizer([fake(abstain('no rule'), calls, 'a'), fake(allow, calls, 'b'), fake(deny, calls, 'c')]).authorize(attrs);
  assert.equal(r, allow, 'the winner answers with its own reason');
  assert.deepEqual(calls, ['a', 'b']);
});

test('union authorizer: when all abstain, reasons are joined by newlines and errors aggregated', () => {
  assert.equal(new UnionAuthorizer([]).authorize(attrs), NO_OPINION);
  assert.equal(new UnionAuthorizer([fake(NO_OPINION, [], 'a'), fake(NO_OPINION, [], 'b')]).authorize(attrs), NO_OPINION);
  const r = new UnionAuthorizer([
    fake(abstain('no RBAC rule'), [], 'a'),
    fake(NO_OPINION, [], 'b'),
    fake(abstain('', new Error('webhook: timeout')), [], 'c'),
    fake(abstain('Everything is forbidden.'), [], 'd'),
  ]).authorize(attrs) as AuthorizationResult;
  assert.equal(r.decision, 'NoOpinion');
  assert.equal(r.reason, 'no RBAC rule\nEverything is forbidden.');
  assert.equal(r.error?.message, 'webhook: timeout');
});

test('union authorizer: one that throws abstains with its error, and the next is still asked', () => {
  const boom = () => {
    throw new Error('broken');
  };
  assert.equal(new UnionAuthorizer([fake(boom, [], 'a'), fake(allow, [], 'b')]).authorize(attrs), allow);
  const r = new UnionAuthorizer([fake(boom, [], 'a')]).authorize(attrs) as AuthorizationResult;
  assert.equal(r.decision, 'NoOpinion');
  assert.equal(r.error?.message, 'broken');
});

test('union authorizer: asynchronous authorizers are awaited in order, with the same semantics', async () => {
  const calls: string[] = [];
  const pending = new UnionAuthorizer([
    fake(abstain('a says no'), calls, 'a'),
    fake(abstain('b says no'), calls, 'b', true),
    fake(() => {
      throw new Error('c broke');
    }, calls, 'c', true),
    fake(deny, calls, 'd', true),
    fake(allow, calls, 'e'),
  ]).authorize(attrs);
  assert.ok(pending instanceof Promise);
  assert.equal(await pending, deny);
  assert.deepEqual(calls, ['a', 'b', 'c', 'd']);
  const none = await new UnionAuthorizer([fake(abstain('one'), [], 'a', true), fake(abstain('two', new Error('e')), [], 'b')]).authorize(attrs);
  assert.deepEqual({ ...none }, { decision: 'NoOpinion', reason: 'one\ntwo', error: none.error });
  assert.equal(none.error?.message, 'e');
});
