/**
 * Creates through the etcd backend (issue 14): our create rate and p99 at c=64 over HTTP/2 on a server started with
 * `--storage-backend=etcd3`, against the raw put rate of the same etcd through the etcd3 client, in ABBA pairs in
 * the same run — the ceiling an etcd-backed API server can reach on this machine. Goal: ours ≥ 0.8 × raw.
 */
import { startEtcd } from '../baselines/etcd.ts';
import { startApiServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { alternateBalanced, measure, type Measured } from '../lib/measure.ts';
import { runChild } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import { etcdVersion, type ToolStatus } from '../lib/tools.ts';
import type { EtcdResult } from '../load/etcd-put.ts';

const C = 64;

export async function runEtcdCreate(cfg: BenchConfig, tools: { etcd: ToolStatus; etcd3Dir?: string; etcd3Note: string }, log: (m: string) => void): Promise<Section> {
  const section = newSection(
    '14. Create through the etcd backend vs raw etcd puts',
    `A server started with \`--storage-backend=etcd3\` on a single-member etcd from Debian (\`etcd-server\`, loopback, default flags plus an 8 GiB quota): closed-loop creates of ~700 B events at c=${C} over HTTP/2, and closed-loop puts of the same event JSON into the same etcd through the \`etcd3\` npm client in a separate process, ${cfg.pairs} pairs in ABBA order of ${cfg.runMs / 1000} s runs. Ratio = our creates/s ÷ raw puts/s per pair. A create is one etcd transaction (create-if-absent) plus a lease grant per reuse window, so the raw put rate is its ceiling.`,
  );
  if (!tools.etcd.ok || !tools.etcd3Dir) {
    section.notes.push(`Not measured: ${[!tools.etcd.ok ? tools.etcd.note : '', !tools.etcd3Dir ? tools.etcd3Note : ''].filter(Boolean).join('; ')}.`);
    return section;
  }
  const etcd = await startEtcd();
  try {
    const server = await startApiServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`], 'core-apiserver (etcd3)');
    try {
      const { a: ours, b: raw } = await alternateBalanced<Measured | EtcdResult>(
        cfg.pairs,
        (i) =>
          measure(server.pid, {
            origin: server.origin,
            creds: server.creds,
            transport: 'h2',
            concurrency: C,
            durationMs: cfg.runMs,
            ...(i === 0 ? { warmupMs: cfg.warmupMs } : {}),
            method: 'POST',
            event: { namespace: 'bench-etcd-create', namePrefix: `e-r${i}-`, start: 0 },
          }),
        (i) => runChild<EtcdResult>('load/etcd-put.ts', { endpoint: etcd.endpoint, etcd3Dir: tools.etcd3Dir, concurrency: C, durationMs: cfg.runMs, warmupMs: i === 0 ? cfg.warmupMs : 200, run: `ec${C}r${i}` }, cfg.runMs + 60_000),
      );
      const o = ours as Measured[];
      const r = raw as EtcdResult[];
      const ratios = o.map((x, i) => x.okPerS / r[i]!.putsPerS);
      const failures = o.reduce((s, x) => s + (x.completed - x.lat2xx.n) + x.errors, 0);
      section.tables.push({
        caption: 'min / **median** / max over the pairs; latencies in ms.',
        head: ['c', 'raw etcd puts/s', 'raw p50', 'raw p99', 'our creates/s', 'our p50', 'our p99', 'ours ÷ raw (per pair)', 'our non-2xx', 'raw errors'],
        rows: [
          [
            String(C),
            fmtSpread(spread(r.map((x) => x.putsPerS))),
            fmtSpread(spread(r.map((x) => x.latency.p50))),
            fmtSpread(spread(r.map((x) => x.latency.p99))),
            fmtSpread(spread(o.map((x) => x.okPerS))),
            fmtSpread(spread(o.map((x) => x.lat2xx.p50))),
            fmtSpread(spread(o.map((x) => x.lat2xx.p99))),
            fmtSpread(spread(ratios)),
            String(failures),
            String(r.reduce((s, x) => s + x.errors, 0)),
          ],
        ],
      });
      section.goals.push(judge({ id: 'G14a', text: `create rate through etcd c=${C} HTTP/2 ≥ 0.8 × raw etcd put rate (same etcd, same run)`, direction: 'atLeast', target: 0.8 }, ratios, { ok: failures === 0, why: 'some creates failed (non-2xx or errors)' }));
      section.notes.push(`${etcdVersion() ?? 'etcd'}; ${tools.etcd3Note}. Per-pair ratios: ${ratios.map((x) => fmt(x)).join(', ')}.`);
      log(`  etcd create c=${C}: ours ${fmt(spread(o.map((x) => x.okPerS)).median)}/s, raw ${fmt(spread(r.map((x) => x.putsPerS)).median)} puts/s`);
    } finally {
      await server.stop();
    }
  } finally {
    await etcd.stop();
  }
  return section;
}
