/** End-to-end: --max-requests-inflight / --max-mutating-requests-inflight answer the excess with 429. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestServer, sampleEvent } from './helpers/server.ts';

const BASE = '/apis/events.cluster.io/v1';
const s = new TestServer();
before(async () => {
  await s.start(['--max-mutating-requests-inflight=2', '--max-requests-inflight=1']);
});
after(async () => {
  await s.cleanup();
});

describe('max in flight', () => {
  it('answers excess mutating requests with 429, Retry-After and the upstream text', async () => {
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => s.request('POST', `${BASE}/namespaces/fl/events`, sampleEvent(`f${i}`, 'fl'))));
    const codes = results.map((r) => r.status);
    assert.ok(codes.includes(201), 'some were admitted');
    const refused = results.filter((r) => r.status === 429);
    assert.ok(refused.length > 0, 'some were refused');
    assert.equal(refused[0]!.headers['retry-after'], '1');
    assert.equal(refused[0]!.body, 'Too many requests, please try again later.\n');
    assert.deepEqual([...new Set(codes)].sort(), [201, 429]);
    const listed = (await s.request('GET', `${BASE}/namespaces/fl/events`)).json();
    assert.equal(listed.items.length, codes.filter((c) => c === 201).length, 'every admitted create is stored, no refused one is');
  });

  it('exempts watches and health checks', async () => {
    const watches = Array.from({ length: 5 }, () => s.watch(`${BASE}/namespaces/fl/events?watch=1&resourceVersion=0&timeoutSeconds=2`));
    assert.deepEqual(await Promise.all(watches.map((w) => w.status)), [200, 200, 200, 200, 200]);
    const health = await Promise.all(Array.from({ length: 10 }, () => s.request('GET', '/readyz', undefined, {}, false)));
    assert.ok(health.every((h) => h.status === 200));
    for (const w of watches) w.stop();
  });
});
