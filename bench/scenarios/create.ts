/**
 * Scenario 1 (and the durable variant): event creates at each concurrency over HTTP/2 and HTTP/1.1 keep-alive,
 * alternating with the bare server's parse-serialize-201 POST of the same body, same transport and certificate.
 */
import type { BareServer, RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import type { EventSpec } from '../lib/event.ts';
import { alternate, measure, type Measured } from '../lib/measure.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import type { Transport } from '../lib/transport.ts';

export interface CreateRun {
  transport: Transport;
  concurrency: number;
  ours: Measured[];
  bare: Measured[];
}

export interface CreateOptions {
  title: string;
  intro: string;
  /** Goal ids get this prefix (G1… for NORMAL, G3… for FULL). */
  goalPrefix: string;
  matrix: { transport: Transport; concurrency: number }[];
  namespace: string;
  /** Throughput target at the highest concurrency, as a fraction of the bare rate. */
  rateTarget: number;
  latencyGoals: boolean;
  /** False for cross-checks that report figures only. */
  judgeGoals?: boolean;
  tool?: 'node' | 'autocannon';
}

const pct = (xs: number[]) => xs.map((x) => `${fmt(x)}`);

export async function runCreates(cfg: BenchConfig, ours: RunningServer, bare: BareServer, o: CreateOptions, log: (m: string) => void): Promise<{ section: Section; runs: CreateRun[] }> {
  const section = newSection(o.title, o.intro);
  const runs: CreateRun[] = [];
  for (const { transport, concurrency } of o.matrix) {
    const base = (origin: string, path: string | undefined, ev: EventSpec & { start: number }, warm: boolean) => ({
      origin,
      creds: ours.creds,
      transport,
      concurrency,
      durationMs: cfg.runMs,
      ...(warm ? { warmupMs: cfg.warmupMs } : {}),
      method: 'POST' as const,
      ...(path ? { path } : {}),
      event: ev,
    });
    // Object names must be DNS subdomains: lower case.
    const tag = `${o.goalPrefix}${transport}c${concurrency}${o.tool === 'autocannon' ? 'ac' : ''}`.toLowerCase();
    const { a: bareRuns, b: ourRuns } = await alternate(
      cfg.pairs,
      (i) => measure(bare.pid, base(bare.origin, '/create', { namespace: o.namespace, namePrefix: 'b-', start: 0 }, i === 0), o.tool),
      (i) => measure(ours.pid, base(ours.origin, undefined, { namespace: o.namespace, namePrefix: `${tag}-r${i}-`, start: 0 }, i === 0), o.tool),
    );
    runs.push({ transport, concurrency, ours: ourRuns, bare: bareRuns });
    const non2xx = ourRuns.reduce((s, r) => s + (r.completed - r.lat2xx.n) + r.errors, 0);
    log(`  ${transport} c=${concurrency}: ours ${fmt(spread(ourRuns.map((r) => r.okPerS)).median)}/s, bare ${fmt(spread(bareRuns.map((r) => r.okPerS)).median)}/s${non2xx ? `, ${non2xx} non-2xx/errors` : ''}`);
  }

  section.tables.push({
    caption: 'Throughput (2xx/s) and latency (ms), min / **median** / max over the pairs; ratio = ours ÷ bare per pair. CPU = server CPU per request (µs), independent of the load client.',
    head: ['transport', 'c', 'bare req/s', 'ours events/s', 'ratio (per pair)', 'bare p50', 'ours p50', 'bare p99', 'ours p99', 'CPU µs/req bare → ours', 'ours non-2xx'],
    rows: runs.map((r) => {
      const ratios = r.ours.map((x, i) => x.okPerS / r.bare[i]!.okPerS);
      return [
        r.transport === 'h2' ? 'HTTP/2' : 'HTTP/1.1',
        String(r.concurrency),
        fmtSpread(spread(r.bare.map((x) => x.okPerS))),
        fmtSpread(spread(r.ours.map((x) => x.okPerS))),
        `${fmtSpread(spread(ratios))}`,
        fmtSpread(spread(r.bare.map((x) => x.lat2xx.p50))),
        fmtSpread(spread(r.ours.map((x) => x.lat2xx.p50))),
        fmtSpread(spread(r.bare.map((x) => x.lat2xx.p99))),
        fmtSpread(spread(r.ours.map((x) => x.lat2xx.p99))),
        `${fmt(spread(r.bare.map((x) => x.serverCpuUs)).median)} → ${fmt(spread(r.ours.map((x) => x.serverCpuUs)).median)}`,
        String(r.ours.reduce((s, x) => s + (x.completed - x.lat2xx.n) + x.errors, 0)),
      ];
    }),
  });

  const maxC = Math.max(...o.matrix.map((m) => m.concurrency));
  for (const r of o.judgeGoals === false ? [] : runs) {
    const T = r.transport === 'h2' ? 'HTTP/2' : 'HTTP/1.1';
    const ratio = (f: (m: Measured) => number) => r.ours.map((x, i) => f(x) / f(r.bare[i]!));
    const allOk = r.ours.every((x) => x.errors === 0 && x.lat2xx.n === x.completed);
    const extra = { ok: allOk, why: 'some creates failed (non-2xx or errors)' };
    if (r.concurrency === maxC) {
      section.goals.push(judge({ id: `${o.goalPrefix}a`, text: `create rate c=${maxC} ${T} ≥ ${o.rateTarget} × bare`, direction: 'atLeast', target: o.rateTarget }, ratio((m) => m.okPerS), extra));
      // The load client caps the bare rate on 2 cores (see the calibration section); server CPU per request does
      // not depend on the client, so the same target is also judged as bare CPU/request ÷ our CPU/request.
      section.goals.push(judge({ id: `${o.goalPrefix}a′`, text: `create capacity c=${maxC} ${T} by server CPU: bare µs/request ÷ ours ≥ ${o.rateTarget} (client-independent)`, direction: 'atLeast', target: o.rateTarget }, r.ours.map((x, i) => r.bare[i]!.serverCpuUs / x.serverCpuUs), extra));
      if (o.latencyGoals) {
        section.goals.push(judge({ id: `${o.goalPrefix}b`, text: `create p50 c=${maxC} ${T} ≤ 1.5 × bare`, direction: 'atMost', target: 1.5 }, ratio((m) => m.lat2xx.p50)));
        section.goals.push(judge({ id: `${o.goalPrefix}c`, text: `create p99 c=${maxC} ${T} ≤ 3 × bare`, direction: 'atMost', target: 3 }, ratio((m) => m.lat2xx.p99)));
      }
    }
    if (r.concurrency === 1 && o.latencyGoals) {
      section.goals.push(judge({ id: `${o.goalPrefix}d`, text: `create p50 c=1 ${T} ≤ 5 × bare`, direction: 'atMost', target: 5 }, ratio((m) => m.lat2xx.p50)));
    }
  }
  section.notes.push(`Per-pair ratios of the rate: ${runs.map((r) => `${r.transport} c=${r.concurrency}: ${pct(r.ours.map((x, i) => x.okPerS / r.bare[i]!.okPerS)).join(', ')}`).join('; ')}.`);
  return { section, runs };
}
