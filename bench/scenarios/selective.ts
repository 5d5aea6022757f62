/**
 * Scenario 4: selective lists at cluster scope, measured at two store sizes (after 100k and after all events are
 * stored): a field selector on regarding.name matching 10 events, type=Warning with limit=500, and two selectors
 * matching nothing (regarding.name, which the watch cache indexes, and reportingController, which it does not)
 * that show what a miss costs per stored event.
 */
import type { RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { API_PREFIX } from '../lib/event.ts';
import { runChild } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import type { FetchResult } from '../load/fetch.ts';

export interface SelectiveAt {
  stored: number;
  byKind: Map<string, FetchResult[]>;
}

const KINDS = ['regarding.name=pod-K (10 matches)', 'type=Warning&limit=500', 'regarding.name (no match)', 'reportingController (no match, not indexed)'] as const;

function paths(kind: (typeof KINDS)[number], n: number, pods: number, seed: number): string[] {
  const base = `${API_PREFIX}/events?`;
  let x = seed;
  // A small LCG: the same pods are asked at both store sizes, spread over the first 100k events.
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648);
  switch (kind) {
    case 'regarding.name=pod-K (10 matches)':
      return Array.from({ length: n }, () => `${base}fieldSelector=${encodeURIComponent(`regarding.name=pod-${next() % pods}`)}`);
    case 'type=Warning&limit=500':
      return [`${base}fieldSelector=${encodeURIComponent('type=Warning')}&limit=500`];
    case 'regarding.name (no match)':
      return [`${base}fieldSelector=${encodeURIComponent('regarding.name=no-such-pod')}`];
    case 'reportingController (no match, not indexed)':
      return [`${base}fieldSelector=${encodeURIComponent('reportingController=no-such-controller')}`];
  }
}

/** Measures every selector kind `cfg.runs` times against the server as it is now. */
export async function measureSelective(cfg: BenchConfig, s: RunningServer, stored: number, pods: number): Promise<SelectiveAt> {
  const byKind = new Map<string, FetchResult[]>(KINDS.map((k) => [k, []]));
  for (let r = 0; r < cfg.runs; r++) {
    const groups = KINDS.map((kind) => {
      const p = paths(kind, cfg.selectiveQueries, pods, 42 + r);
      return { paths: p, repeat: p.length > 1 ? 1 : kind === 'reportingController (no match, not indexed)' ? cfg.scanQueries : cfg.selectiveQueries, maxMs: cfg.selectiveGroupMs };
    });
    const res = await runChild<FetchResult>('load/fetch.ts', { origin: s.origin, creds: s.creds, transport: 'h2', mode: 'get', paths: [], groups }, 600_000, 'selective');
    KINDS.forEach((k, i) => byKind.get(k)!.push(res.groups![i]!));
  }
  return { stored, byKind };
}

export function selectiveSection(small: SelectiveAt, big: SelectiveAt): Section {
  const section = newSection(
    '4. Selective list',
    `Cluster-scope lists with field selectors, sequential queries from one client process over HTTP/2, at ${fmt(small.stored)} and at ${fmt(big.stored)} stored events. Each run: ${'`regarding.name=pod-K`'} over many different pods, the other selectors repeated; each kind is bounded in time per run (at least 3 queries).`,
  );
  const rows: string[][] = [];
  for (const kind of KINDS) {
    for (const at of [small, big]) {
      const rs = at.byKind.get(kind)!;
      rows.push([kind, fmt(at.stored), rs.map((r) => String(r.requests)).join(', '), fmtSpread(spread(rs.map((r) => r.latency.p50))), fmtSpread(spread(rs.map((r) => r.latency.p99))), String(Math.max(...rs.map((r) => r.maxItems))), fmt(spread(rs.map((r) => (r.latency.p50 * 1000) / at.stored)).median, 3), Object.entries(rs[0]!.status).map(([k, v]) => `${k}:${v}`).join(' ')]);
    }
  }
  section.tables.push({ head: ['selector', 'stored', 'queries per run', 'p50 ms', 'p99 ms', 'max items', 'µs per stored event (p50)', 'status (run 1)'], rows });
  const runs = (kind: string, at: SelectiveAt) => at.byKind.get(kind)!;
  for (const kind of ['regarding.name=pod-K (10 matches)', 'type=Warning&limit=500'] as const) {
    section.goals.push(judge({ id: 'G6a', text: `selective ${kind} at ${fmt(big.stored)} stored: p99 ≤ 20 ms`, direction: 'atMost', target: 20 }, runs(kind, big).map((r) => r.latency.p99)));
    section.goals.push(judge({ id: 'G6b', text: `selective ${kind}: flat, p50 at ${fmt(big.stored)} ÷ p50 at ${fmt(small.stored)} ≤ 1.2`, direction: 'atMost', target: 1.2 }, runs(kind, big).map((r, i) => r.latency.p50 / runs(kind, small)[i]!.latency.p50)));
  }
  section.goals.push(judge({ id: 'G6c', text: `a selector matching nothing on a field without an index (reportingController) costs ≤ 0.3 µs per stored event it looks at (${fmt(big.stored)} stored)`, direction: 'atMost', target: 0.3 }, runs('reportingController (no match, not indexed)', big).map((r) => (r.latency.p50 * 1000) / big.stored)));
  section.goals.push(judge({ id: 'G6d', text: `indexed field (regarding.name) matching nothing looks at no events: p50 at ${fmt(big.stored)} ÷ p50 at ${fmt(small.stored)} ≤ 1.2`, direction: 'atMost', target: 1.2 }, runs('regarding.name (no match)', big).map((r, i) => r.latency.p50 / runs('regarding.name (no match)', small)[i]!.latency.p50)));
  section.notes.push('Flatness is judged on the median latency (p99 over a few hundred sub-millisecond queries is dominated by GC pauses and scheduling); the p99s are in the table.');
  return section;
}
