import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CpuRates, parseFlatKeyed, parsePSI } from './stats.ts';
import { nextBackoff, BACKOFF_INITIAL_MS, BACKOFF_MAX_MS, BACKOFF_RESET_MS } from './runtime.ts';

describe('corelet statistics', () => {
  it('parses PSI files; a cpu file without a full line reports full as zeros', () => {
    const t = 'some avg10=1.50 avg60=0.25 avg300=0.00 total=123456\nfull avg10=0.10 avg60=0.00 avg300=0.00 total=789\n';
    assert.deepEqual(parsePSI(t), { some: { avg10: 1.5, avg60: 0.25, avg300: 0, total: 123456 }, full: { avg10: 0.1, avg60: 0, avg300: 0, total: 789 } });
    assert.deepEqual(parsePSI('some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n')?.full, { total: 0, avg10: 0, avg60: 0, avg300: 0 });
    assert.equal(parsePSI(''), undefined);
  });

  it('parses flat keyed files', () => {
    assert.deepEqual([...parseFlatKeyed('usage_usec 10\nuser_usec 7\nbogus\n')], [['usage_usec', 10], ['user_usec', 7]]);
  });

  it('usageNanoCores is the rate between two samples; none for the first or after a counter reset', () => {
    const r = new CpuRates();
    assert.equal(r.rate('a', 1_000_000_000, 0n), undefined);
    assert.equal(r.rate('a', 1_500_000_000, 1_000_000_000n), 500_000_000);
    assert.equal(r.rate('a', 10, 2_000_000_000n), undefined);
  });

  it("crash-loop back-off: immediate first restart, then 10s doubling to 5m, reset after 10 minutes' run", () => {
    let b = 0;
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const n = nextBackoff(b, 1000);
      delays.push(n.delay / 1000);
      b = n.next;
    }
    assert.deepEqual(delays, [0, 10, 20, 40, 80, 160, 300, 300]);
    assert.equal(BACKOFF_INITIAL_MS, 10_000);
    assert.equal(BACKOFF_MAX_MS, 300_000);
    assert.deepEqual(nextBackoff(BACKOFF_MAX_MS, BACKOFF_RESET_MS), { delay: 0, next: 10_000 });
  });
});
