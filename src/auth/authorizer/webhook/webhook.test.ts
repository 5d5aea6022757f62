import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileMatchCondition } from '../../../cel/authorization.ts';
import type { Attributes } from '../interface.ts';
import { LRUExpireCache } from './cache.ts';
import type { WebhookConnection } from './kubeconfig.ts';
import { TestWebhookServer } from './testing/webhook-server.ts';
import { WebhookAuthorizer, type WebhookAuthorizerOptions, type WebhookRecorder } from './webhook.ts';

const server = new TestWebhookServer();
let conn: (path: string) => WebhookConnection;
before(async () => {
  await server.start();
  conn = (path) => ({ url: new URL(`${server.url}${path}`), ca: server.caPem, insecureSkipTLSVerify: false });
});
after(() => server.close());

const attrs = (over: Partial<Attributes> = {}): Attributes => ({
  user: { name: 'alice', uid: 'u1', groups: ['team-a', 'system:authenticated'], extra: { 'b-key': ['2'], 'a-key': ['1'] } },
  verb: 'get',
  namespace: 'a',
  apiGroup: 'events.cluster.io',
  apiVersion: 'v1',
  resource: 'events',
  subresource: '',
  name: 'e1',
  path: '/apis/events.cluster.io/v1/namespaces/a/events/e1',
  isResourceRequest: true,
  ...over,
});

function recorder() {
  const seen = { evaluations: [] as string[], failOpen: [] as string[], matches: [] as string[] };
  const r: WebhookRecorder = {
    evaluation: (result) => seen.evaluations.push(result),
    failOpen: (result) => seen.failOpen.push(result),
    matchConditions: (_s, outcome) => seen.matches.push(outcome),
  };
  return { seen, r };
}

let n = 0;
function authorizer(over: Partial<WebhookAuthorizerOptions> = {}): { a: WebhookAuthorizer; path: string } {
  const path = `/t${++n}`;
  const a = new WebhookAuthorizer({
    name: 'w',
    connection: conn(path),
    subjectAccessReviewVersion: 'v1',
    timeoutMs: 500,
    authorizedTTLMs: 60_000,
    unauthorizedTTLMs: 10_000,
    failurePolicy: 'NoOpinion',
    matchConditions: [],
    backoff: { initialMs: 5, factor: 1.5, jitter: 0.2, steps: 5 },
    ...over,
  });
  return { a, path };
}

const cond = (e: string) => compileMatchCondition(e).compiled!;

describe('WebhookAuthorizer', () => {
  it('sends the v1 spec (extra keys sorted, empty fields left out) and maps allowed, denied and neither', async () => {
    const { a, path } = authorizer();
    server.answer = (r) => (r.body.spec.resourceAttributes.name === 'e1' ? { allowed: true, reason: 'ok' } : r.body.spec.resourceAttributes.name === 'e2' ? { denied: true, reason: 'no' } : { reason: 'dunno' });
    assert.deepEqual(await a.authorize(attrs()), { decision: 'Allow', reason: 'ok' });
    assert.deepEqual(await a.authorize(attrs({ name: 'e2' })), { decision: 'Deny', reason: 'no' });
    assert.deepEqual(await a.authorize(attrs({ name: 'e3' })), { decision: 'NoOpinion', reason: 'dunno' });
    const body = server.on(path)[0]!.body;
    assert.equal(JSON.stringify(body), JSON.stringify({
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: { namespace: 'a', verb: 'get', group: 'events.cluster.io', version: 'v1', resource: 'events', name: 'e1' },
        user: 'alice',
        groups: ['team-a', 'system:authenticated'],
        extra: { 'a-key': ['1'], 'b-key': ['2'] },
        uid: 'u1',
      },
      status: { allowed: false },
    }));
    a.close();
  });

  it('non-resource requests carry path and verb; v1beta1 names the groups `group`', async () => {
    const { a, path } = authorizer({ subjectAccessReviewVersion: 'v1beta1' });
    server.answer = () => ({ allowed: true });
    assert.equal((await a.authorize(attrs({ isResourceRequest: false, verb: 'get', path: '/healthz/log' }))).decision, 'Allow');
    const body = server.on(path)[0]!.body;
    assert.equal(body.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.deepEqual(body.spec.nonResourceAttributes, { path: '/healthz/log', verb: 'get' });
    assert.deepEqual(body.spec.group, ['team-a', 'system:authenticated']);
    assert.equal(body.spec.groups, undefined);
    a.close();
  });

  it('allowed and denied at once is a Deny with an error', async () => {
    const { a } = authorizer();
    server.answer = () => ({ allowed: true, denied: true, reason: 'confused' });
    const r = await a.authorize(attrs());
    assert.equal(r.decision, 'Deny');
    assert.equal(r.reason, 'confused');
    assert.equal(r.error?.message, 'webhook subject access review returned both allow and deny response');
    a.close();
  });

  it('caches allowed answers for the authorized TTL and the rest for the unauthorized TTL; failures never', async () => {
    let now = 1_000_000;
    const { a, path } = authorizer({ now: () => now });
    server.answer = (r) => (r.body.spec.resourceAttributes.name === 'yes' ? { allowed: true } : { allowed: false });
    for (let i = 0; i < 3; i++) await a.authorize(attrs({ name: 'yes' }));
    for (let i = 0; i < 3; i++) await a.authorize(attrs({ name: 'no' }));
    assert.equal(server.on(path).length, 2);
    now += 10_001;
    await a.authorize(attrs({ name: 'yes' }));
    await a.authorize(attrs({ name: 'no' }));
    assert.equal(server.on(path).length, 3, 'only the unauthorized entry expired');
    now += 50_000;
    await a.authorize(attrs({ name: 'yes' }));
    assert.equal(server.on(path).length, 4);
    // A failure is not remembered: the next request asks again.
    server.answer = () => ({ status: 400, raw: 'nope' });
    await a.authorize(attrs({ name: 'fails' }));
    await a.authorize(attrs({ name: 'fails' }));
    assert.equal(server.on(path).length, 6);
    a.close();
  });

  it('a TTL of 0 (the cache switched off) asks every time; huge attributes are never cached', async () => {
    const { a, path } = authorizer({ authorizedTTLMs: 0 });
    server.answer = () => ({ allowed: true });
    await a.authorize(attrs());
    await a.authorize(attrs());
    assert.equal(server.on(path).length, 2);
    const { a: b, path: p2 } = authorizer();
    const big = attrs({ name: 'x'.repeat(10_000) });
    await b.authorize(big);
    await b.authorize(big);
    assert.equal(server.on(p2).length, 2);
    a.close();
    b.close();
  });

  it('failurePolicy decides failures: a timeout, a non-2xx, a malformed body, an unreachable webhook', async () => {
    for (const policy of ['NoOpinion', 'Deny'] as const) {
      const { seen, r } = recorder();
      const { a, path } = authorizer({ failurePolicy: policy, recorder: r, timeoutMs: 200 });
      const cases: [string, () => object, RegExp][] = [
        ['slow', () => ({ allowed: true, delayMs: 600 }), /context deadline exceeded/],
        ['forbidden', () => ({ status: 403, raw: 'go away' }), /403/],
        ['garbage', () => ({ raw: 'not json' }), /malformed webhook answer/],
        ['wrong-type', () => ({ raw: '{"status":{"allowed":"yes"}}' }), /status.allowed is not a boolean/],
        ['wrong-kind', () => ({ raw: '{"kind":"Status","status":{"allowed":true}}' }), /kind "Status"/],
      ];
      for (const [name, answer, msg] of cases) {
        server.answer = answer as never;
        const d = await a.authorize(attrs({ name }));
        assert.equal(d.decision, policy, name);
        assert.match(d.error?.message ?? '', msg, name);
      }
      assert.equal(server.on(path).length, cases.length, 'none of these is retried');
      assert.deepEqual(seen.evaluations, ['timeout', 'error', 'error', 'error', 'error']);
      assert.deepEqual(seen.failOpen, policy === 'NoOpinion' ? ['timeout', 'error', 'error', 'error', 'error'] : []);
      a.close();
    }
    const { a: down } = authorizer({ failurePolicy: 'Deny', connection: { url: new URL('https://127.0.0.1:1/x'), insecureSkipTLSVerify: false } });
    const d = await down.authorize(attrs());
    assert.equal(d.decision, 'Deny');
    assert.match(d.error!.message, /ECONNREFUSED/);
    down.close();
  });

  it('retries 500, 504, 429 and Retry-After up to five attempts', async () => {
    const { seen, r } = recorder();
    const { a, path } = authorizer({ recorder: r });
    let calls = 0;
    server.answer = () => (++calls < 3 ? { status: calls === 1 ? 500 : 429, raw: 'later' } : { allowed: true });
    assert.equal((await a.authorize(attrs())).decision, 'Allow');
    assert.equal(server.on(path).length, 3);
    assert.deepEqual(seen.evaluations, ['error', 'error', 'success']);
    server.answer = () => ({ status: 503, raw: 'down', headers: { 'retry-after': '1' } });
    const d = await a.authorize(attrs({ name: 'other' }));
    assert.equal(d.decision, 'NoOpinion');
    assert.match(d.error!.message, /status 503/);
    assert.equal(server.on(path).length, 8);
    a.close();
  });

  it('match conditions: all true asks, the first false skips without a call, an error is a failure', async () => {
    const { seen, r } = recorder();
    const { a, path } = authorizer({
      failurePolicy: 'Deny',
      recorder: r,
      matchConditions: [cond("'team-a' in request.groups"), cond("request.resourceAttributes.namespace == 'a'"), cond("request.extra['a-key'][0] == '1'")],
    });
    server.answer = () => ({ allowed: true });
    assert.equal((await a.authorize(attrs())).decision, 'Allow');
    assert.deepEqual(await a.authorize(attrs({ namespace: 'b' })), { decision: 'NoOpinion', reason: '' });
    assert.deepEqual(await a.authorize(attrs({ user: { name: 'bob', groups: [] } })), { decision: 'NoOpinion', reason: '' });
    assert.equal(server.on(path).length, 1);
    // Non-resource: the second condition cannot be evaluated (no resourceAttributes), and none is false.
    const d = await a.authorize(attrs({ isResourceRequest: false, path: '/api' }));
    assert.equal(d.decision, 'Deny');
    assert.match(d.error!.message, /^cel evaluation error: expression 'request.resourceAttributes.namespace == 'a'' resulted in error: /);
    assert.equal(server.on(path).length, 1);
    assert.deepEqual(seen.matches, ['matched', 'excluded', 'excluded', 'error']);
    a.close();
  });
});

describe('LRUExpireCache', () => {
  it('expires entries and drops the least recently used past its capacity', () => {
    let now = 0;
    const c = new LRUExpireCache<number>(2, () => now);
    c.add('a', 1, 100);
    c.add('b', 2, 100);
    assert.equal(c.get('a'), 1);
    c.add('c', 3, 100);
    assert.equal(c.get('b'), undefined, 'b was the least recently used');
    assert.equal(c.get('a'), 1);
    now = 100;
    assert.equal(c.get('a'), undefined);
    c.add('d', 4, 0);
    assert.equal(c.get('d'), undefined, 'a TTL of 0 stores nothing');
  });
});

describe('a webhook that authenticates its callers (mTLS)', () => {
  const mtls = new TestWebhookServer();
  before(() => mtls.start({ mtls: true }));
  after(() => mtls.close());

  it('presents the kubeconfig\'s client certificate; without it the call fails', async () => {
    mtls.answer = () => ({ allowed: true });
    const base = { url: new URL(`${mtls.url}/mtls`), ca: mtls.caPem, insecureSkipTLSVerify: false };
    const { a } = authorizer({ connection: { ...base, cert: mtls.client!.certPem, key: mtls.client!.keyPem } });
    assert.equal((await a.authorize(attrs())).decision, 'Allow');
    assert.equal(mtls.on('/mtls')[0]!.clientCN, 'core-apiserver');
    a.close();
    const { a: anonymous } = authorizer({ connection: base, failurePolicy: 'Deny' });
    const d = await anonymous.authorize(attrs());
    assert.equal(d.decision, 'Deny');
    assert.ok(d.error);
    anonymous.close();
  });
});
