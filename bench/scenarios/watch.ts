/**
 * Scenario 5: watch fan-out. W watchers (HTTP/2 multiplexed over one session, or one HTTP/1.1 connection each)
 * in one client process while a second process creates events at a fixed rate; delivery latency runs from the
 * create's response (creator's clock) to receipt (watcher's clock, same host). The bare baseline is a Node server
 * that serializes each event once and writes it to every watcher, driven by the same creator and watchers.
 *
 * Two rates: the issue's (goal G9, judged there), and an extra row at a rate the bare fan-out sustains on this
 * machine without missing deliveries, so that one ratio compares two unsaturated systems rather than two queues.
 * Server CPU per delivery (from /proc) is reported beside the latencies because it does not depend on how much
 * of the shared cores the watcher client gets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BareServer, RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { API_PREFIX } from '../lib/event.ts';
import { alternate } from '../lib/measure.ts';
import { cpuMsOf, runChild, spawnChild } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import type { Transport } from '../lib/transport.ts';
import type { LoadResult } from '../load/http-load.ts';
import type { WatchResult } from '../load/watchers.ts';

interface Run extends WatchResult {
  creator: LoadResult;
  /** Server CPU (user + system) from the first create to the last delivery, per delivery, µs (creates included). */
  cpuUsPerDelivery: number;
  /** The watcher client's CPU over the same window, per delivery, µs (how close the client is to its core). */
  clientCpuUsPerDelivery: number;
}

interface Target {
  origin: string;
  pid: number;
  watchPath: string;
  createPath: string | undefined;
  ns: string;
}

async function oneRun(cfg: BenchConfig, rate: number, creds: RunningServer['creds'], transport: Transport, t: Target): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
  const count = Math.round((rate * cfg.watchMs) / 1000);
  const watchers = spawnChild('load/watchers.ts', { origin: t.origin, creds, transport, watchers: cfg.watchers, sessions: 1, path: t.watchPath, drainMs: cfg.quick ? 3_000 : 5_000 }, { label: 'watchers' });
  try {
    await watchers.waitFor('ready', 120_000);
    const file = join(dir, 'resp.json');
    const c0 = cpuMsOf(t.pid);
    const w0 = cpuMsOf(watchers.pid);
    const creator = await runChild<LoadResult>(
      'load/http-load.ts',
      { origin: t.origin, creds, transport: 'h2', concurrency: 256, rate, count, durationMs: cfg.watchMs * 3, method: 'POST', ...(t.createPath ? { path: t.createPath } : {}), event: { namespace: t.ns, namePrefix: 'w-', seqMarker: true, start: 0 }, respTimesFile: file },
      cfg.watchMs * 3 + 60_000,
      'watch-creator',
    );
    watchers.send(`finish ${file} 0 ${count}`);
    const r = await watchers.waitFor<WatchResult>('result', 60_000);
    const cpuMs = cpuMsOf(t.pid) - c0;
    const clientMs = cpuMsOf(watchers.pid) - w0;
    const per = (ms: number) => (r.delivered ? (ms * 1000) / r.delivered : NaN);
    return { ...r, creator, cpuUsPerDelivery: per(cpuMs), clientCpuUsPerDelivery: per(clientMs) };
  } finally {
    watchers.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rates measured: the issue's, then (when configured and different) the one the bare fan-out sustains. */
function ratesOf(cfg: BenchConfig): { rate: number; extra: boolean }[] {
  const rates = [{ rate: cfg.watchRate, extra: false }];
  if (cfg.watchSustainedRate && cfg.watchSustainedRate !== cfg.watchRate) rates.push({ rate: cfg.watchSustainedRate, extra: true });
  return rates;
}

export async function runWatch(cfg: BenchConfig, ours: RunningServer, bare: BareServer, transports: Transport[], log: (m: string) => void): Promise<Section> {
  const rates = ratesOf(cfg);
  const section = newSection(
    '5. Watch fan-out',
    `${cfg.watchers} watchers in one client process while events are created for ${cfg.watchMs / 1000} s from another process (HTTP/2) at ${rates.map((r) => `${r.rate}/s${r.extra ? ' (G9′, an extra row: a rate the bare fan-out sustains on this machine, so its ratio compares unsaturated systems; not the issue\'s goal, which stays judged on G9)' : ' (G9)'}`).join(' and at ')}. Latency: create response → receipt by a watcher, per delivery; "all" = until the last watcher got the event. Watchers over HTTP/2 share one connection (multiplexed); over HTTP/1.1 each has its own. CPU = a process's CPU per delivery from the first create to the last receipt: the server's (creates included) does not depend on the client's share of the cores; the watcher client's shows how much of its core the client needed.`,
  );
  const rows: string[][] = [];
  for (const { rate, extra } of rates) {
    for (const t of transports) {
      const { a: b, b: o } = await alternate(
        cfg.pairs,
        () => oneRun(cfg, rate, ours.creds, t, { origin: bare.origin, pid: bare.pid, watchPath: '/watch', createPath: '/emit', ns: 'bare' }),
        (i) => {
          const ns = `watch-${rate}-${t}-${i}`;
          return oneRun(cfg, rate, ours.creds, t, { origin: ours.origin, pid: ours.pid, watchPath: `${API_PREFIX}/namespaces/${ns}/events?watch=1`, createPath: undefined, ns });
        },
      );
      const T = t === 'h2' ? 'HTTP/2 (1 connection)' : 'HTTP/1.1 (1 connection each)';
      const R = `${rate}/s${extra ? ' (extra)' : ''}`;
      for (const [who, rs] of [['bare', b], ['ours', o]] as const) {
        rows.push([R, T, who, fmtSpread(spread(rs.map((x) => x.latency.p50))), fmtSpread(spread(rs.map((x) => x.latency.p99))), fmtSpread(spread(rs.map((x) => x.fromSend.p99))), fmtSpread(spread(rs.map((x) => x.allDelivered.p99))), fmtSpread(spread(rs.map((x) => x.deliveredPerS))), fmtSpread(spread(rs.map((x) => x.cpuUsPerDelivery))), fmtSpread(spread(rs.map((x) => x.clientCpuUsPerDelivery))), `${rs.reduce((s, x) => s + x.missing, 0)} / ${rs.reduce((s, x) => s + x.expected, 0)}`, `${rs.reduce((s, x) => s + x.ended, 0)} / ${rs.reduce((s, x) => s + x.incomplete, 0)}`, fmtSpread(spread(rs.map((x) => x.creator.okPerS)))]);
      }
      const ratios = o.map((x, i) => x.latency.p99 / b[i]!.latency.p99);
      const bareShort = b.reduce((s, x) => s + x.missing, 0);
      if (bareShort > 0) {
        section.notes.push(`${R}, ${T}: the bare fan-out itself left ${bareShort} of ${b.reduce((s, x) => s + x.expected, 0)} deliveries missing: the offered fan-out exceeds what this machine carries with server, creator and a ${cfg.watchers}-watcher client sharing its cores, so this row compares two saturated systems and its latencies are mostly queueing.`);
      }
      const dropped = o.reduce((s, x) => s + x.ended + x.incomplete, 0);
      const id = extra ? 'G9′' : 'G9';
      const what = extra ? `extra, not the issue's goal: watch p99 delivery at ${rate}/s (a rate the bare fan-out sustains here), ${cfg.watchers} watchers` : `watch p99 delivery, ${cfg.watchers} watchers at ${rate}/s`;
      section.goals.push(judge({ id, text: `${what}, ${T} ≤ 2 × bare fan-out, no watcher dropped`, direction: 'atMost', target: 2 }, ratios, { ok: dropped === 0, why: `${dropped} watcher-runs dropped or incomplete` }));
      log(`  watch ${rate}/s ${t}: p99 ours ${fmt(spread(o.map((x) => x.latency.p99)).median)} ms vs bare ${fmt(spread(b.map((x) => x.latency.p99)).median)} ms, CPU µs/delivery ours ${fmt(spread(o.map((x) => x.cpuUsPerDelivery)).median)} vs bare ${fmt(spread(b.map((x) => x.cpuUsPerDelivery)).median)}, dropped ${dropped}, bare missing ${bareShort}`);
    }
  }
  section.tables.push({ head: ['events/s', 'transport', 'server', 'delivery p50 ms', 'delivery p99 ms', 'p99 from create send ms', 'all-watchers p99 ms', 'delivered/s', 'server CPU µs/delivery', 'watcher client CPU µs/delivery', 'missing / expected', 'watchers ended by server / incomplete (all runs)', 'creates/s achieved'], rows });
  section.notes.push(`A watcher is incomplete when it lacks any event ${cfg.quick ? 3 : 5} s after the last create answered; "ended" counts streams the server closed during the run.`);
  section.notes.push('Latency can be negative when a watcher receives the event before the creator process has read its own 201 (a busy creator reads responses late); both clocks are the host clock (performance.timeOrigin + now). "From create send" counts from the request\'s send instead and cannot be negative.');
  return section;
}
