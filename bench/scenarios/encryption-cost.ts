/**
 * Scenario 13 (issue 13): what encryption at rest costs a create. Two servers of this build side by side, one
 * without `--encryption-provider-config` (values stored as they are: the identity transformer) and one with an
 * aesgcm configuration for Events, driven alternately with the same load: creates at c=64 over HTTP/2. Goal: the
 * aesgcm create rate within 15 % of identity.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { alternateBalanced, measure, type Measured } from '../lib/measure.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';

export async function runEncryptionCost(cfg: BenchConfig, log: (m: string) => void): Promise<Section> {
  const section = newSection(
    '13. The cost of encryption at rest',
    'The same build twice: without an encryption configuration (identity) and with `aesgcm` (one 32-byte key) for Events. A/B pairs alternate between the two servers; ratio = aesgcm ÷ identity per pair. Runs are at least 2.5 s and at least 8 pairs even in quick mode, every other pair in the opposite order (ABBA), so that whatever the first run of a pair leaves behind (a checkpoint, the other server\'s garbage collection) falls on both alike: the target is 15 %.',
  );
  const pairs = Math.max(cfg.pairs, 8);
  const runMs = Math.max(cfg.runMs, 2_500);
  const warmupMs = Math.max(cfg.warmupMs, 1_000);
  const dir = mkdtempSync(join(tmpdir(), 'core-apiserver-bench-enc-'));
  const config = join(dir, 'encryption.yaml');
  writeFileSync(
    config,
    `apiVersion: apiserver.config.cluster.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [events]\n  providers:\n  - aesgcm: {keys: [{name: key1, secret: ${randomBytes(32).toString('base64')}}]}\n`,
  );
  const identity = await startApiServer([], 'core-apiserver (identity)');
  const aesgcm = await startApiServer([`--encryption-provider-config=${config}`], 'core-apiserver (aesgcm)');
  try {
    const concurrency = 64;
    const run = (s: RunningServer, i: number) =>
      measure(s.pid, {
        origin: s.origin, creds: s.creds, transport: 'h2', concurrency, durationMs: runMs, ...(i === 0 ? { warmupMs } : {}),
        method: 'POST', event: { namespace: 'bench-enc', namePrefix: `x${i}-`, start: 0 },
      });
    const { a: plain, b: enc } = await alternateBalanced<Measured>(pairs, (i) => run(identity, i), (i) => run(aesgcm, i));
    const ratios = enc.map((x, i) => x.okPerS / plain[i]!.okPerS);
    const cpu = enc.map((x, i) => plain[i]!.serverCpuUs / x.serverCpuUs);
    const ok = [...enc, ...plain].every((x) => x.errors === 0 && x.lat2xx.n === x.completed);
    section.tables.push({
      head: ['request', 'c', 'identity /s', 'aesgcm /s', 'ratio (per pair)', 'CPU µs/req identity → aesgcm'],
      rows: [['create', String(concurrency), fmtSpread(spread(plain.map((x) => x.okPerS))), fmtSpread(spread(enc.map((x) => x.okPerS))), fmtSpread(spread(ratios)), `${fmt(spread(plain.map((x) => x.serverCpuUs)).median)} → ${fmt(spread(enc.map((x) => x.serverCpuUs)).median)}`]],
    });
    section.goals.push(judge({ id: 'E1', text: `create rate with aesgcm ≥ 0.85 × identity (HTTP/2 c=${concurrency})`, direction: 'atLeast', target: 0.85 }, ratios, { ok, why: 'some requests failed' }));
    section.goals.push(judge({ id: 'E1′', text: 'create server CPU per request: identity ÷ aesgcm ≥ 0.85 (client-independent)', direction: 'atLeast', target: 0.85 }, cpu, { ok, why: 'some requests failed' }));
    log(`  create: aesgcm/identity ${fmt(spread(ratios).median)}, CPU ${fmt(spread(cpu).median)}`);
  } finally {
    await Promise.all([identity.stop(), aesgcm.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
  return section;
}
