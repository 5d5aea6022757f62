import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../metrics/registry.ts';
import { writeText } from '../../metrics/text.ts';
import { type AuthenticationResult, NO_CREDENTIALS } from './interface.ts';
import { CachedTokenAuthenticator } from './token-cache.ts';
import { TokenCacheMetrics } from '../../server/authentication-metrics.ts';
import type { Answer } from './union.ts';

const alice: AuthenticationResult = { user: { name: 'alice', groups: ['system:authenticated'] } };

/** The lines of one metric family in the text exposition (HELP and TYPE left out). */
function lines(r: Registry, name: string): string[] {
  return writeText(r.collect())
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

function setUp(answer: (token: string) => Answer) {
  const registry = new Registry({ version: '1.36.0' });
  let now = 1_000_000;
  let calls = 0;
  const cache = new CachedTokenAuthenticator(
    {
      authenticateToken: (t) => {
        calls++;
        return answer(t);
      },
    },
    { now: () => now, metrics: new TokenCacheMetrics(registry) },
  );
  return { registry, cache, calls: () => calls, advance: (ms: number) => (now += ms) };
}

test('a success is kept 10 s and served synchronously; then asked again', async () => {
  const c = setUp(() => Promise.resolve(alice));
  assert.equal(await c.cache.authenticateToken('t'), alice);
  const hit = c.cache.authenticateToken('t');
  assert.ok(!(hit instanceof Promise), 'a hit costs no promise hop');
  assert.equal(hit, alice);
  assert.equal(c.calls(), 1);
  c.advance(9_999);
  c.cache.authenticateToken('t');
  assert.equal(c.calls(), 1);
  c.advance(1);
  await c.cache.authenticateToken('t');
  assert.equal(c.calls(), 2, 'expired after the success TTL');
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_request_total'), [
    'authentication_token_cache_request_total{status="hit"} 2',
    'authentication_token_cache_request_total{status="miss"} 2',
  ]);
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_fetch_total'), [
    'authentication_token_cache_fetch_total{status="error"} 0',
    'authentication_token_cache_fetch_total{status="ok"} 2',
  ]);
  assert.ok(lines(c.registry, 'authentication_token_cache_request_duration_seconds_count').includes('authentication_token_cache_request_duration_seconds_count{status="hit"} 2'));
});

test('refusals and unknown tokens are never kept; an error counts as a failed fetch, an unknown token as an ok one', async () => {
  const c = setUp((t) => (t === 'bad' ? Promise.resolve({ user: null, error: new Error('oidc: verify token: expired') }) : NO_CREDENTIALS));
  for (let i = 0; i < 2; i++) {
    assert.equal((await c.cache.authenticateToken('bad')).error?.message, 'oidc: verify token: expired');
    assert.equal(c.cache.authenticateToken('unknown'), NO_CREDENTIALS, 'a synchronous inner answer stays synchronous');
  }
  assert.equal(c.calls(), 4);
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_fetch_total'), [
    'authentication_token_cache_fetch_total{status="error"} 2',
    'authentication_token_cache_fetch_total{status="ok"} 2',
  ]);
});

test('concurrent misses on one token share one authentication (single flight); the gauges count it while it runs', async () => {
  let release!: (r: AuthenticationResult) => void;
  const c = setUp(() => new Promise((r) => (release = r)));
  const waiting = [c.cache.authenticateToken('t'), c.cache.authenticateToken('t'), c.cache.authenticateToken('t')];
  assert.equal(c.calls(), 1);
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_active_fetch_count'), [
    'authentication_token_cache_active_fetch_count{status="blocked"} 3',
    'authentication_token_cache_active_fetch_count{status="in_flight"} 1',
  ]);
  release(alice);
  for (const r of await Promise.all(waiting)) assert.equal(r, alice);
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_active_fetch_count'), [
    'authentication_token_cache_active_fetch_count{status="blocked"} 0',
    'authentication_token_cache_active_fetch_count{status="in_flight"} 0',
  ]);
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_request_total'), ['authentication_token_cache_request_total{status="hit"} 0', 'authentication_token_cache_request_total{status="miss"} 3']);
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_fetch_total'), ['authentication_token_cache_fetch_total{status="error"} 0', 'authentication_token_cache_fetch_total{status="ok"} 1']);
  // Different tokens do not share.
  const other = c.cache.authenticateToken('u');
  assert.equal(c.calls(), 2);
  release(alice);
  await other;
});

test('an authenticator that throws or rejects is a refusal with its error, counted as a failed fetch', async () => {
  const c = setUp((t) => {
    if (t === 'throw') throw new Error('boom');
    return Promise.reject(new Error('rejected'));
  });
  assert.equal((c.cache.authenticateToken('throw') as AuthenticationResult).error?.message, 'boom');
  assert.equal((await c.cache.authenticateToken('reject')).error?.message, 'rejected');
  assert.deepEqual(lines(c.registry, 'authentication_token_cache_fetch_total'), ['authentication_token_cache_fetch_total{status="error"} 2', 'authentication_token_cache_fetch_total{status="ok"} 0']);
});

test('HELP is the stability prefix alone, as upstream registers these metrics without help text', () => {
  const c = setUp(() => NO_CREDENTIALS);
  const text = writeText(c.registry.collect());
  assert.match(text, /^# HELP authentication_token_cache_request_total \[ALPHA\] $/m);
  assert.match(text, /^# TYPE authentication_token_cache_active_fetch_count gauge$/m);
  assert.match(text, /^# TYPE authentication_token_cache_request_duration_seconds histogram$/m);
});

test("with a failure TTL (kubelet's webhook token cache) refusals are kept for it too, successes for their own TTL", async () => {
  let now = 0;
  let calls = 0;
  const cache = new CachedTokenAuthenticator(
    {
      authenticateToken: (t) => {
        calls++;
        return Promise.resolve(t === 'good' ? alice : { user: null, error: null });
      },
    },
    { now: () => now, successTTLMs: 120_000, failureTTLMs: 60_000 },
  );
  assert.equal((await cache.authenticateToken('bad')).user, null);
  assert.equal((cache.authenticateToken('bad') as AuthenticationResult).user, null, 'the refusal is served from the cache');
  assert.equal(await cache.authenticateToken('good'), alice);
  assert.equal(calls, 2);
  now += 60_000;
  await cache.authenticateToken('bad');
  assert.equal(cache.authenticateToken('good'), alice);
  assert.equal(calls, 3, 'the refusal expired after the failure TTL, the success is still kept');
  now += 60_000;
  await cache.authenticateToken('good');
  assert.equal(calls, 4);
});
