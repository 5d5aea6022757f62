import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathBucket, rootPath } from './routes.ts';

describe('corelet request metrics', () => {
  it('buckets paths as kubelet does: the first segment, metrics/<x> under /metrics, other for what is not served', () => {
    const served = new Set(['healthz', 'stats', 'metrics', 'metrics/resource']);
    assert.equal(rootPath('/stats/summary'), 'stats');
    assert.equal(rootPath('/metrics/resource'), 'metrics/resource');
    assert.equal(rootPath('/metrics'), 'metrics');
    assert.equal(rootPath('/metrics/'), 'metrics');
    assert.equal(pathBucket('/healthz', served), 'healthz');
    assert.equal(pathBucket('/stats/summary/extra', served), 'stats');
    assert.equal(pathBucket('/metrics/resource', served), 'metrics/resource');
    assert.equal(pathBucket('/metrics/cadvisor', served), 'other');
    assert.equal(pathBucket('/random/' + 'x'.repeat(50), served), 'other');
  });
});
