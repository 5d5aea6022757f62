/**
 * Fuzzing (issues 4 and 8, "Resilience"): a short run of the fuzz runner of `npm run fuzz` (bench/fuzz/runner.ts),
 * with a fixed seed. The server is started as a user starts it, a separate load process sends 3,000 hostile requests
 * (arbitraries in bench/fuzz/hostile.ts: every endpoint, verb, parameter and content type, bodies mutated from valid
 * Events, deep JSON and YAML, issue 8's deep-YAML burst on one HTTP/2 connection) 32 at a time over HTTP/1.1 and
 * HTTP/2 while 16 watches with hostile selectors stay open. The server must not die, answer nothing but 4xx Status
 * errors for bad input (the only 5xx: the documented 504s), keep every watch well-formed, keep `/readyz` green, log
 * no unhandled error, and keep its RSS within the bound.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFuzz } from '../bench/fuzz/runner.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 4242);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5000);

describe('fuzz', () => {
  it(`answers ${REQUESTS} hostile requests from a separate process without dying, a 5xx, a bad answer or a red /readyz (seed ${SEED})`, { timeout: 150_000 }, async (t) => {
    const outDir = mkdtempSync(join(tmpdir(), 'core-apiserver-fuzz-'));
    let keep = false;
    try {
      const r = await runFuzz({ requests: REQUESTS, seed: SEED, outDir, maxMs: 120_000, log: (m) => t.diagnostic(m) });
      keep = !r.passed;
      const L = r.load;
      t.diagnostic(`${L?.sent ?? 0} requests in ${(r.elapsedMs / 1000).toFixed(0)} s; answers ${JSON.stringify(L?.byClass)}; RSS ${r.rss.afterWarmupMiB.toFixed(0)} → ${r.rss.lastMiB.toFixed(0)} MiB; watches ${JSON.stringify(L?.watchStats.byStatus)}`);
      const where = `(result files kept in ${outDir}: fuzz-summary.md, last-requests.json for --replay)`;
      assert.equal(r.server.died, undefined, `the server died ${where}\n${r.server.stderrTail.slice(-3000)}`);
      assert.ok(L, `the load process failed: ${r.loadError}`);
      assert.equal(L.sent, REQUESTS, `only ${L.sent} of ${REQUESTS} requests were sent: ${L.stoppedEarly}`);
      const kinds = L.problemKinds.map((p) => `- ${p.count}× ${p.example}`).join('\n');
      assert.equal(L.undocumented5xx, 0, `undocumented 5xx answers ${where}:\n${kinds}`);
      assert.equal(L.problems, 0, `${L.problemKinds.length} kinds of bad answers ${where}:\n${kinds}`);
      assert.equal(L.watchStats.failed, 0, `broken watches:\n${L.watchStats.failures.join('\n')}`);
      assert.ok(L.watchStats.opened >= 16, `only ${L.watchStats.opened} watches opened`);
      assert.equal(r.readyz.non200 + r.readyz.errors, 0, `/readyz failed: ${r.readyz.firstFailures.join('; ')}`);
      assert.ok(r.readyz.ok > 0, 'no /readyz poll answered');
      assert.deepEqual(r.server.unhandledErrorLines, [], 'the server logged unhandled errors');
      assert.ok(r.rss.growthAfterWarmupMiB < r.rss.boundMiB, `RSS grew by ${r.rss.growthAfterWarmupMiB.toFixed(0)} MiB after warm-up`);
      assert.equal(r.server.shutdownExit?.code, 0, 'the graceful stop after the run failed');
      assert.deepEqual(r.failures, []);
    } finally {
      if (!keep) rmSync(outDir, { recursive: true, force: true });
    }
  });
});
