import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeText } from '../metrics/text.ts';
import { CoreletHealth, syncLoopTimeout } from './healthz.ts';

describe('corelet health checks', () => {
  it('syncloop fails once the sync loop has not started a pass for twice its period (at least 5 minutes); the SLIs record each run', () => {
    assert.equal(syncLoopTimeout(20_000), 300_000);
    assert.equal(syncLoopTimeout(600_000), 1_200_000);
    let now = 1_000_000;
    let last: number | undefined;
    const h = new CoreletHealth({ lastSyncStart: () => last, periodMs: 20_000 }, () => now);
    assert.deepEqual(h.run(), { ok: true, lines: ['[+]ping ok', '[+]syncloop ok'] }, 'before the first pass');
    last = now;
    now += 300_000;
    assert.equal(h.run().ok, true);
    now += 1;
    assert.deepEqual(h.run(), { ok: false, lines: ['[+]ping ok', '[-]syncloop failed: reason withheld'] });
    const out = writeText(h.slis.collect());
    assert.ok(out.includes('cluster_healthcheck{name="syncloop",type="healthz"} 0\n'));
    assert.ok(out.includes('cluster_healthchecks_total{name="syncloop",status="success",type="healthz"} 2\n'));
    assert.ok(out.includes('cluster_healthchecks_total{name="syncloop",status="error",type="healthz"} 1\n'));
    assert.ok(out.includes('cluster_healthchecks_total{name="ping",status="success",type="healthz"} 3\n'));
  });
});
