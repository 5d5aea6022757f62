/**
 * Issue 9's paged-list goal: a walk of N events with limit=500 following metadata.continue (what kubectl does for
 * every `get`) against one full list of the same N, on the same server in the same pair, as a ratio of times.
 * Each pair runs: our full list, our walk, then the bare server's full buffer of the list's bytes and its "walk"
 * (as many sequential GETs of a buffer of the average page's bytes). The bare ratio is the floor this machine,
 * node:http2 and the load client set on a walk: the per-request cost of 1/limit as many requests.
 */
import type { BareServer, RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { cpuMsOf, runChild } from '../lib/proc.ts';
import type { GoalResult } from '../lib/stats.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import type { FetchResult } from '../load/fetch.ts';

export const WALK_LIMIT = 500;
export const WALK_TARGET = 1.5;

export interface WalkCase {
  label: string;
  /** The list path without query (a namespace, or every namespace). */
  path: string;
  events: number;
}

export interface WalkResult {
  rows: string[][];
  goals: GoalResult[];
}

export const WALK_HEAD = [
  'events',
  'pages',
  'ours: full list ms',
  'ours: walk ms',
  '**walk ÷ full (per pair)**',
  'server CPU ms: full → walk',
  'bare: full buffer ms',
  'bare: walk ms',
  'bare walk ÷ full',
  'bare CPU ms: full → walk',
  'status',
];

interface Timed extends FetchResult {
  cpuMs: number;
}

/** One fetch child with the server's CPU time across it (Linux ticks of 10 ms; lists take hundreds). */
async function timed(pid: number, args: unknown, label: string): Promise<Timed> {
  const c0 = cpuMsOf(pid);
  const r = await runChild<FetchResult>('load/fetch.ts', args, 600_000, label);
  return { ...r, cpuMs: cpuMsOf(pid) - c0 };
}

export async function runWalks(cfg: BenchConfig, s: RunningServer, bare: BareServer, cases: WalkCase[], log: (m: string) => void): Promise<WalkResult> {
  const out: WalkResult = { rows: [], goals: [] };
  const base = (origin: string) => ({ origin, creds: s.creds, transport: 'h2' });
  for (const c of cases) {
    const full: Timed[] = [];
    const walk: Timed[] = [];
    const bareFull: Timed[] = [];
    const bareWalk: Timed[] = [];
    // One walk unrecorded first: the server's page path warmed up as on a server that has served lists before.
    await runChild<FetchResult>('load/fetch.ts', { ...base(s.origin), mode: 'paginate', paths: [`${c.path}?limit=${WALK_LIMIT}`] }, 600_000, 'walk warm-up');
    for (let i = 0; i < cfg.pairs; i++) {
      full.push(await timed(s.pid, { ...base(s.origin), mode: 'get', paths: [c.path], parse: false }, `full ${c.label}`));
      walk.push(await timed(s.pid, { ...base(s.origin), mode: 'paginate', paths: [`${c.path}?limit=${WALK_LIMIT}`] }, `walk ${c.label}`));
      const w = walk.at(-1)!;
      const pages = w.pages ?? 1;
      bareFull.push(await timed(bare.pid, { ...base(bare.origin), mode: 'get', paths: [`/buf?bytes=${full.at(-1)!.bytes}`], parse: false }, 'bare full'));
      bareWalk.push(await timed(bare.pid, { ...base(bare.origin), mode: 'get', paths: [`/buf?bytes=${Math.round(w.bytes / pages)}`], repeat: pages, parse: false }, 'bare walk'));
    }
    const ratios = walk.map((w, i) => w.totalMs / full[i]!.totalMs);
    const bareRatios = bareWalk.map((w, i) => w.totalMs / bareFull[i]!.totalMs);
    const ok = [...full, ...walk].every((r) => Object.keys(r.status).every((k) => k === '200'));
    out.rows.push([
      c.label,
      fmt(spread(walk.map((w) => w.pages ?? 0)).median),
      fmtSpread(spread(full.map((r) => r.totalMs))),
      fmtSpread(spread(walk.map((r) => r.totalMs))),
      fmtSpread(spread(ratios)),
      `${fmt(spread(full.map((r) => r.cpuMs)).median)} → ${fmt(spread(walk.map((r) => r.cpuMs)).median)}`,
      fmtSpread(spread(bareFull.map((r) => r.totalMs))),
      fmtSpread(spread(bareWalk.map((r) => r.totalMs))),
      fmtSpread(spread(bareRatios)),
      `${fmt(spread(bareFull.map((r) => r.cpuMs)).median)} → ${fmt(spread(bareWalk.map((r) => r.cpuMs)).median)}`,
      ok ? '200' : JSON.stringify([...full, ...walk].map((r) => r.status)),
    ]);
    log(`  walk ${c.label}: ${fmt(spread(walk.map((r) => r.totalMs)).median)} ms vs full ${fmt(spread(full.map((r) => r.totalMs)).median)} ms, ratio ${fmt(spread(ratios).median)} (bare ${fmt(spread(bareRatios).median)})`);
    out.goals.push(
      judge({ id: 'I9', text: `paged walk of ${c.label} with limit=${WALK_LIMIT} ≤ ${WALK_TARGET} × one full list of the same events (walk time ÷ full-list time, same server, per pair)`, direction: 'atMost', target: WALK_TARGET }, ratios, { ok, why: 'some lists did not answer 200' }),
    );
  }
  return out;
}
