import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Attributes, Operation } from '../../interfaces.ts';
import { TooManyRequestsError } from '../../../apimachinery/errors.ts';
import { newEventRateLimit } from './admission.ts';

function clock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

function config(...limits: string[]): string {
  return `apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n${limits.join('')}`;
}
const limit = (type: string, qps: number, burst: number, cacheSize?: number) =>
  `- type: ${type}\n  qps: ${qps}\n  burst: ${burst}\n${cacheSize === undefined ? '' : `  cacheSize: ${cacheSize}\n`}`;

function attrs(o: { ns?: string; user?: string; op?: Operation; group?: string; kind?: string; dryRun?: boolean; source?: string; regarding?: string } = {}): Attributes {
  const group = o.group ?? 'events.cluster.io';
  return {
    name: 'e',
    namespace: o.ns ?? 'default',
    resource: { group, version: 'v1', resource: 'events' },
    subresource: '',
    kind: { group, version: 'v1', kind: o.kind ?? 'Event' },
    operation: o.op ?? 'CREATE',
    dryRun: o.dryRun ?? false,
    object: {
      apiVersion: 'events.cluster.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: o.ns ?? 'default' },
      deprecatedSource: { component: o.source ?? 'kubelet', host: 'node-1' },
      regarding: { kind: 'Pod', namespace: o.ns ?? 'default', name: o.regarding ?? 'web', uid: 'u1', apiVersion: 'v1' },
    } as never,
    oldObject: null,
    userInfo: { name: o.user ?? 'alice', groups: [] },
  };
}

/** How many requests pass before the first refusal, and that refusal. */
function drain(p: ReturnType<typeof newEventRateLimit>, a: Attributes, max = 100): { admitted: number; error?: TooManyRequestsError } {
  for (let i = 0; i < max; i++) {
    try {
      p.validate(a);
    } catch (e) {
      return { admitted: i, error: e as TooManyRequestsError };
    }
  }
  return { admitted: max };
}

describe('EventRateLimit', () => {
  it('handles creates and updates only', () => {
    const p = newEventRateLimit(config(limit('Server', 1, 1)));
    assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as Operation[]).filter((op) => p.handles(op)), ['CREATE', 'UPDATE']);
  });

  for (const [type, key] of [['Server', ''], ['Namespace', 'default'], ['User', 'alice'], ['SourceAndObject', 'kubeletnode-1Poddefaultwebu1v1']] as const) {
    it(`${type}: refuses past the burst with upstream's 429, admits again after refill`, () => {
      const c = clock();
      const p = newEventRateLimit(config(limit(type, 2, 3)), c.now);
      const first = drain(p, attrs());
      assert.equal(first.admitted, 3);
      assert.ok(first.error instanceof TooManyRequestsError);
      const st = first.error.toStatus();
      assert.equal(st.code, 429);
      assert.equal(st.reason, 'TooManyRequests');
      assert.equal(st.message, `Too many requests: limit reached on type ${type} for key ${key}`);
      assert.equal(st.details, undefined, 'no retryAfterSeconds, so no Retry-After');
      c.advance(500);
      assert.equal(drain(p, attrs()).admitted, 1, 'half a second at 2 qps');
      c.advance(10_000);
      assert.equal(drain(p, attrs()).admitted, 3, 'never more than the burst');
    });
  }

  it('keys: another namespace, user or object has its own bucket', () => {
    const c = clock();
    const p = newEventRateLimit(config(limit('Namespace', 1, 1)), c.now);
    assert.equal(drain(p, attrs({ ns: 'a' })).admitted, 1);
    assert.equal(drain(p, attrs({ ns: 'b' })).admitted, 1);
    const u = newEventRateLimit(config(limit('User', 1, 1)), c.now);
    assert.equal(drain(u, attrs({ user: 'x' })).admitted, 1);
    assert.equal(drain(u, attrs({ user: 'y' })).admitted, 1);
    const s = newEventRateLimit(config(limit('SourceAndObject', 1, 1)), c.now);
    assert.equal(drain(s, attrs({ regarding: 'a' })).admitted, 1);
    assert.equal(drain(s, attrs({ regarding: 'b' })).admitted, 1);
    assert.equal(drain(s, attrs({ regarding: 'a', source: 'other' })).admitted, 1);
  });

  it('every limit spends a token; several refusals are one aggregate message', () => {
    const c = clock();
    const p = newEventRateLimit(config(limit('Server', 1, 2), limit('Namespace', 1, 1)), c.now);
    p.validate(attrs());
    assert.throws(() => p.validate(attrs()), { message: 'Too many requests: limit reached on type Namespace for key default' });
    // The Server bucket paid for the refused request too: it is empty now.
    assert.throws(() => p.validate(attrs({ ns: 'other' })), { message: 'Too many requests: limit reached on type Server for key ' });
    assert.throws(() => p.validate(attrs()), { message: 'Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key default]' });
  });

  it('both views of Events count, other kinds and dry runs do not', () => {
    const c = clock();
    const p = newEventRateLimit(config(limit('Server', 1, 2)), c.now);
    p.validate(attrs({ group: 'events.cluster.io' }));
    p.validate(attrs({ group: '' }));
    assert.throws(() => p.validate(attrs({ group: '' })), { message: 'Too many requests: limit reached on type Server for key ' });
    p.validate(attrs({ dryRun: true }));
    p.validate(attrs({ kind: 'Role', group: 'rbac.authorization.k8s.io' }));
    p.validate(attrs({ kind: 'Event', group: 'example.com' }));
  });

  it('an evicted bucket comes back full (LRU of cacheSize buckets)', () => {
    const c = clock();
    const p = newEventRateLimit(config(limit('Namespace', 1, 1, 2)), c.now);
    assert.equal(drain(p, attrs({ ns: 'a' })).admitted, 1);
    assert.equal(drain(p, attrs({ ns: 'b' })).admitted, 1);
    assert.equal(drain(p, attrs({ ns: 'a' })).admitted, 0, 'a is still cached and empty');
    assert.equal(drain(p, attrs({ ns: 'c' })).admitted, 1, 'evicts b, the least recently used');
    assert.equal(drain(p, attrs({ ns: 'b' })).admitted, 1, 'b was evicted: a full bucket again');
  });
});
