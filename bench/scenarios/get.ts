/** Scenario 2: GET one event by name, alternating with the bare server's fixed 1 KB JSON GET. */
import { h2Request, type BareServer, type RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { API_PREFIX, eventBody } from '../lib/event.ts';
import { alternate, measure } from '../lib/measure.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import type { Transport } from '../lib/transport.ts';

export async function runGets(cfg: BenchConfig, ours: RunningServer, bare: BareServer, matrix: { transport: Transport; concurrency: number }[], log: (m: string) => void): Promise<Section> {
  const section = newSection('2. Get by name', 'GET of one stored event (about 1 KB of JSON) versus the bare server answering a fixed 1 KB JSON object (stringified per request).');
  const ns = 'bench-get';
  const made = await h2Request(ours.origin, 'POST', `${API_PREFIX}/namespaces/${ns}/events`, { creds: ours.creds, body: eventBody({ namespace: ns, namePrefix: 'get-', size: 900 }, 1) });
  if (made.status !== 201) throw new Error(`creating the GET target: ${made.status} ${made.body.slice(0, 200)}`);
  const path = `${API_PREFIX}/namespaces/${ns}/events/get-1`;
  const rows: string[][] = [];
  for (const { transport, concurrency } of matrix) {
    const args = (origin: string, p: string, warm: boolean) => ({ origin, creds: ours.creds, transport, concurrency, durationMs: cfg.runMs, ...(warm ? { warmupMs: cfg.warmupMs } : {}), method: 'GET' as const, path: p });
    const { a: b, b: o } = await alternate(
      cfg.pairs,
      (i) => measure(bare.pid, args(bare.origin, '/1k', i === 0)),
      (i) => measure(ours.pid, args(ours.origin, path, i === 0)),
    );
    const ratios = o.map((x, i) => x.okPerS / b[i]!.okPerS);
    const T = transport === 'h2' ? 'HTTP/2' : 'HTTP/1.1';
    rows.push([T, String(concurrency), fmtSpread(spread(b.map((x) => x.okPerS))), fmtSpread(spread(o.map((x) => x.okPerS))), fmtSpread(spread(ratios)), fmtSpread(spread(b.map((x) => x.lat2xx.p99))), fmtSpread(spread(o.map((x) => x.lat2xx.p99))), `${fmt(spread(b.map((x) => x.serverCpuUs)).median)} → ${fmt(spread(o.map((x) => x.serverCpuUs)).median)}`]);
    section.goals.push(judge({ id: 'G4', text: `get by name ${T} c=${concurrency} ≥ 0.6 × bare 1 KB GET`, direction: 'atLeast', target: 0.6 }, ratios, { ok: o.every((x) => x.errors === 0 && x.lat2xx.n === x.completed), why: 'some GETs failed' }));
    log(`  get ${T} c=${concurrency}: ratio ${fmt(spread(ratios).median)}`);
  }
  section.tables.push({ head: ['transport', 'c', 'bare 1 KB GET/s', 'ours GET/s', 'ratio (per pair)', 'bare p99 ms', 'ours p99 ms', 'CPU µs/req bare → ours'], rows });
  return section;
}
