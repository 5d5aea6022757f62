/**
 * The etcd ceiling: raw put rate of a local single-member etcd through the etcd3 client at the create
 * concurrencies, next to our create rate at the same concurrency (HTTP/2, same run).
 */
import { startEtcd } from '../baselines/etcd.ts';
import type { BenchConfig } from '../lib/config.ts';
import { runChild } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, spread } from '../lib/stats.ts';
import { etcdVersion, type ToolStatus } from '../lib/tools.ts';
import type { EtcdResult } from '../load/etcd-put.ts';

export async function runEtcd(cfg: BenchConfig, tools: { etcd: ToolStatus; etcd3Dir?: string; etcd3Note: string }, ourRate: (c: number) => number, log: (m: string) => void): Promise<Section> {
  const section = newSection('Raw etcd put rate (the ceiling of an etcd-backed API server)', 'Single-member etcd from Debian (`etcd-server`) on loopback, default flags plus an 8 GiB quota; closed-loop puts of the same ~700 B event JSON through the `etcd3` npm client (grpc-js) in a separate process. Ratio = our create rate (HTTP/2, same concurrency, median) ÷ the etcd put rate (median).');
  if (!tools.etcd.ok || !tools.etcd3Dir) {
    section.notes.push(`Not measured: ${[!tools.etcd.ok ? tools.etcd.note : '', !tools.etcd3Dir ? tools.etcd3Note : ''].filter(Boolean).join('; ')}.`);
    return section;
  }
  const etcd = await startEtcd();
  try {
    const rows: string[][] = [];
    for (const c of cfg.concurrencies) {
      const rs: EtcdResult[] = [];
      for (let r = 0; r < cfg.runs; r++) {
        rs.push(await runChild<EtcdResult>('load/etcd-put.ts', { endpoint: etcd.endpoint, etcd3Dir: tools.etcd3Dir, concurrency: c, durationMs: cfg.runMs, warmupMs: r === 0 ? cfg.warmupMs : 200, run: `c${c}r${r}` }, cfg.runMs + 60_000));
      }
      const rate = spread(rs.map((x) => x.putsPerS));
      rows.push([String(c), fmtSpread(rate), fmtSpread(spread(rs.map((x) => x.latency.p50))), fmtSpread(spread(rs.map((x) => x.latency.p99))), String(rs.reduce((s, x) => s + x.errors, 0)), fmt(ourRate(c)), fmt(ourRate(c) / rate.median)]);
      log(`  etcd c=${c}: ${fmt(rate.median)} puts/s`);
    }
    section.tables.push({ head: ['c', 'etcd puts/s', 'p50 ms', 'p99 ms', 'errors', 'our creates/s (HTTP/2)', 'ours ÷ etcd'], rows });
    section.notes.push(`${etcdVersion() ?? 'etcd'}; ${tools.etcd3Note}.`);
  } finally {
    await etcd.stop();
  }
  return section;
}
