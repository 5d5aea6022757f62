/**
 * Scenario 5: watch fan-out. W watchers (HTTP/2 multiplexed over one session, or one HTTP/1.1 connection each)
 * in one client process while a second process creates events at a fixed rate; delivery latency runs from the
 * create's response (creator's clock) to receipt (watcher's clock, same host). The bare baseline is a Node server
 * that serializes each event once and writes it to every watcher, driven by the same creator and watchers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareServer, RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { API_PREFIX } from '../lib/event.ts';
import { alternate } from '../lib/measure.ts';
import { runChild, spawnChild } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import type { Transport } from '../lib/transport.ts';
import type { LoadResult } from '../load/http-load.ts';
import type { WatchResult } from '../load/watchers.ts';

interface Run extends WatchResult {
  creator: LoadResult;
}

async function oneRun(cfg: BenchConfig, origin: string, creds: RunningServer['creds'], transport: Transport, watchPath: string, createPath: string | undefined, ns: string): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
  const count = Math.round((cfg.watchRate * cfg.watchMs) / 1000);
  const watchers = spawnChild('load/watchers.ts', { origin, creds, transport, watchers: cfg.watchers, sessions: 1, path: watchPath, drainMs: cfg.quick ? 3_000 : 5_000 }, { label: 'watchers' });
  try {
    await watchers.waitFor('ready', 120_000);
    const file = join(dir, 'resp.json');
    const creator = await runChild<LoadResult>(
      'load/http-load.ts',
      { origin, creds, transport: 'h2', concurrency: 256, rate: cfg.watchRate, count, durationMs: cfg.watchMs * 3, method: 'POST', ...(createPath ? { path: createPath } : {}), event: { namespace: ns, namePrefix: 'w-', seqMarker: true, start: 0 }, respTimesFile: file },
      cfg.watchMs * 3 + 60_000,
      'watch-creator',
    );
    watchers.send(`finish ${file} 0 ${count}`);
    const r = await watchers.waitFor<WatchResult>('result', 60_000);
    return { ...r, creator };
  } finally {
    watchers.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runWatch(cfg: BenchConfig, ours: RunningServer, bare: BareServer, transports: Transport[], log: (m: string) => void): Promise<Section> {
  const section = newSection(
    '5. Watch fan-out',
    `${cfg.watchers} watchers in one client process while ${cfg.watchRate} events/s are created for ${cfg.watchMs / 1000} s from another process (HTTP/2). Latency: create response → receipt by a watcher, per delivery; "all" = until the last watcher got the event. Watchers over HTTP/2 share one connection (multiplexed); over HTTP/1.1 each has its own.`,
  );
  const rows: string[][] = [];
  for (const t of transports) {
    const { a: b, b: o } = await alternate(
      cfg.pairs,
      () => oneRun(cfg, bare.origin, ours.creds, t, '/watch', '/emit', 'bare'),
      (i) => {
        const ns = `watch-${t}-${i}`;
        return oneRun(cfg, ours.origin, ours.creds, t, `${API_PREFIX}/namespaces/${ns}/events?watch=1`, undefined, ns);
      },
    );
    const T = t === 'h2' ? 'HTTP/2 (1 connection)' : 'HTTP/1.1 (1 connection each)';
    for (const [who, rs] of [['bare', b], ['ours', o]] as const) {
      rows.push([T, who, fmtSpread(spread(rs.map((x) => x.latency.p50))), fmtSpread(spread(rs.map((x) => x.latency.p99))), fmtSpread(spread(rs.map((x) => x.fromSend.p99))), fmtSpread(spread(rs.map((x) => x.allDelivered.p99))), fmtSpread(spread(rs.map((x) => x.deliveredPerS))), `${rs.reduce((s, x) => s + x.missing, 0)} / ${rs.reduce((s, x) => s + x.expected, 0)}`, `${rs.reduce((s, x) => s + x.ended, 0)} / ${rs.reduce((s, x) => s + x.incomplete, 0)}`, fmtSpread(spread(rs.map((x) => x.creator.okPerS)))]);
    }
    const ratios = o.map((x, i) => x.latency.p99 / b[i]!.latency.p99);
    const bareShort = b.reduce((s, x) => s + x.missing, 0);
    if (bareShort > 0) {
      section.notes.push(`${T}: the bare fan-out itself left ${bareShort} of ${b.reduce((s, x) => s + x.expected, 0)} deliveries missing (and creates fell below ${cfg.watchRate}/s): the offered fan-out exceeds what this machine carries with server, creator and a ${cfg.watchers}-watcher client sharing its cores, so this row compares two saturated systems and its latencies are mostly queueing.`);
    }
    const dropped = o.reduce((s, x) => s + x.ended + x.incomplete, 0);
    section.goals.push(judge({ id: 'G9', text: `watch p99 delivery, ${cfg.watchers} watchers at ${cfg.watchRate}/s, ${T} ≤ 2 × bare fan-out, no watcher dropped`, direction: 'atMost', target: 2 }, ratios, { ok: dropped === 0, why: `${dropped} watcher-runs dropped or incomplete` }));
    log(`  watch ${t}: p99 ours ${fmt(spread(o.map((x) => x.latency.p99)).median)} ms vs bare ${fmt(spread(b.map((x) => x.latency.p99)).median)} ms, dropped ${dropped}`);
  }
  section.tables.push({ head: ['transport', 'server', 'delivery p50 ms', 'delivery p99 ms', 'p99 from create send ms', 'all-watchers p99 ms', 'delivered/s', 'missing / expected', 'watchers ended by server / incomplete (all runs)', 'creates/s achieved'], rows });
  section.notes.push(`A watcher is incomplete when it lacks any event ${cfg.quick ? 3 : 5} s after the last create answered; "ended" counts streams the server closed during the run.`);
  section.notes.push('Latency can be negative when a watcher receives the event before the creator process has read its own 201 (a busy creator reads responses late); both clocks are the host clock (performance.timeOrigin + now). "From create send" counts from the request\'s send instead and cannot be negative.');
  return section;
}
