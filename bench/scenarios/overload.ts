/**
 * Scenario 8: overload. Open-loop creates offered at 10 × the sustainable rate (the median HTTP/2 c=64 create
 * rate measured earlier in this run) with up to 1,000 requests in flight over HTTP/2, while a probe creates at
 * 100/s (c=1) and /readyz is polled every 100 ms. The probe's p99 is compared with the same probe unloaded.
 */
import { h2Get, type RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { runChild, sampleRss, spawnChild } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, judge } from '../lib/stats.ts';
import type { LoadResult } from '../load/http-load.ts';

const MB = 1 << 20;

/** The refusal floor: a bare server that answers every request with a prebuilt 429 (baselines/bare-refuser.ts). */
async function startRefuser(dataDir: string): Promise<{ origin: string; stop(): Promise<void> }> {
  const child = spawnChild('baselines/bare-refuser.ts', { dataDir, port: 0 }, { label: 'bare-refuser' });
  const { port } = await child.waitFor<{ port: number }>('ready', 30_000);
  return { origin: `https://127.0.0.1:${port}`, stop: () => child.stop('SIGTERM', 5000) };
}

function flood(cfg: BenchConfig, origin: string, s: RunningServer, offered: number, tag: string): Promise<LoadResult> {
  return runChild<LoadResult>('load/http-load.ts', { origin, creds: s.creds, transport: 'h2', sessions: 4, concurrency: 1000, rate: offered, durationMs: cfg.overloadMs, method: 'POST', event: { namespace: 'overload', namePrefix: tag, start: 0 } }, cfg.overloadMs + 120_000, 'overload');
}

function probe(cfg: BenchConfig, s: RunningServer, tag: string): Promise<LoadResult> {
  return runChild<LoadResult>('load/http-load.ts', { origin: s.origin, creds: s.creds, transport: 'h2', concurrency: 1, rate: 100, durationMs: cfg.overloadMs, method: 'POST', event: { namespace: 'overload-probe', namePrefix: `${tag}-`, start: 0 } }, cfg.overloadMs + 60_000, 'probe');
}

export async function runOverload(cfg: BenchConfig, s: RunningServer, sustainable: number, log: (m: string) => void): Promise<Section> {
  const offered = Math.round(sustainable * 10);
  const section = newSection(
    '8. Overload',
    `Fresh server with \`--max-requests-inflight=400 --max-mutating-requests-inflight=200\`. Offered: ${fmt(offered)} creates/s open-loop (10 × the sustainable ${fmt(sustainable)}/s), at most 1,000 in flight over 4 HTTP/2 connections, for ${cfg.overloadMs / 1000} s; a probe creates 100/s at c=1; /readyz is polled every 100 ms.`,
  );
  const rows: string[][] = [];
  const probeRatios: number[] = [];
  const p99_429: number[] = [];
  const floorRatios: number[] = [];
  const refuser = await startRefuser(s.dataDir);
  let readyBad = 0;
  let readyPolls = 0;
  let total429 = 0;
  let withRetryAfter = 0;
  const growth: number[] = [];
  const bounds: number[] = [];
  for (let r = 0; r < cfg.runs; r++) {
    const unloaded = await probe(cfg, s, `u${r}`);
    const sampler = sampleRss(s.pid, 20);
    let polling = true;
    const polls = (async () => {
      while (polling) {
        const t0 = performance.now();
        try {
          const st = (await h2Get(s.origin, '/readyz', s.creds, 2000)).status;
          if (st !== 200) readyBad++;
        } catch {
          readyBad++;
        }
        readyPolls++;
        await new Promise((res) => setTimeout(res, Math.max(0, 100 - (performance.now() - t0))));
      }
    })();
    const [flooded, loaded] = await Promise.all([flood(cfg, s.origin, s, offered, `o${r}-`), probe(cfg, s, `l${r}`)]);
    polling = false;
    await polls;
    const rss = sampler.stop();
    // The same flood against the refuse-only server right after: what refusing alone costs on this machine.
    const floor = await flood(cfg, refuser.origin, s, offered, `f${r}-`);
    const before = rss.start;
    const admitted = (flooded.status['201'] ?? 0) + (loaded.status['201'] ?? 0);
    // Admitted events legitimately stay in the watch cache (≤ 2 KB each by goal G7); the rest must be transient.
    const bound = admitted * 2048 + 64 * MB;
    growth.push(rss.peak - before);
    bounds.push(bound);
    total429 += flooded.status['429'] ?? 0;
    withRetryAfter += flooded.retryAfter429;
    if (flooded.lat429.n) p99_429.push(flooded.lat429.p99);
    if (flooded.lat429.n && floor.lat429.n) floorRatios.push(flooded.lat429.p99 / floor.lat429.p99);
    probeRatios.push(loaded.lat2xx.p99 / unloaded.lat2xx.p99);
    rows.push([
      String(r + 1),
      fmt(flooded.sent / flooded.durationS),
      fmt(flooded.notSent),
      fmt(flooded.okPerS),
      fmt(flooded.status['429'] ?? 0),
      `${flooded.status['429'] ? fmt((100 * flooded.retryAfter429) / flooded.status['429']) : '–'} %`,
      fmt(flooded.lat429.p99),
      `${fmt(floor.sent / floor.durationS)} / ${fmt(floor.lat429.p99)}`,
      fmt(flooded.lat2xx.p99),
      `${fmt(unloaded.lat2xx.p99)} → ${fmt(loaded.lat2xx.p99)}`,
      `${fmt(before / MB)} → ${fmt(rss.peak / MB)}`,
      Object.entries(flooded.status).map(([k, v]) => `${k}:${v}`).join(' ') + (flooded.errors ? ` err:${flooded.errors}` : ''),
    ]);
    log(`  overload run ${r + 1}: offered ${fmt(flooded.sent / flooded.durationS)}/s, 2xx ${fmt(flooded.okPerS)}/s, 429 ${flooded.status['429'] ?? 0}, probe p99 ${fmt(unloaded.lat2xx.p99)} → ${fmt(loaded.lat2xx.p99)} ms`);
  }
  await refuser.stop();
  section.tables.push({
    head: ['run', 'offered/s (sent)', 'held back by client cap', 'admitted 2xx/s', '429s', '429 with Retry-After', '429 p99 ms', 'refuse-only floor: sent/s / 429 p99 ms', 'admitted p99 ms', 'probe p99 ms unloaded → loaded', 'server RSS MB before → peak', 'statuses'],
    rows,
  });
  section.goals.push(judge({ id: 'G8a', text: 'overload: the excess gets 429 with Retry-After within 10 ms (p99 of 429s)', direction: 'atMost', target: 10 }, p99_429, { ok: total429 > 0 && withRetryAfter === total429, why: total429 === 0 ? 'no 429 at all: the excess was queued, not rejected' : `${total429 - withRetryAfter} of ${total429} 429s without Retry-After` }));
  section.goals.push(judge({ id: 'G8a′', text: 'overload: 429 p99 ≤ 2 × the refuse-only bare server\'s 429 p99 under the same flood (G8a read against what this machine and client allow)', direction: 'atMost', target: 2 }, floorRatios));
  section.goals.push(judge({ id: 'G8b', text: 'overload: admitted probe p99 ≤ 2 × unloaded', direction: 'atMost', target: 2 }, probeRatios));
  section.goals.push(judge({ id: 'G8c', text: 'overload: /readyz stays 200 (non-200 or failed polls)', direction: 'atMost', target: 0 }, [readyBad], { ok: readyPolls > 0, why: 'no polls' }));
  section.goals.push(judge({ id: 'G8d', text: 'overload: RSS bounded (peak growth ÷ (2 KB × admitted + 64 MB))', direction: 'atMost', target: 1 }, growth.map((g, i) => g / bounds[i]!)));
  section.notes.push(`/readyz: ${readyPolls} polls, ${readyBad} not 200.`);
  section.notes.push('Refuse-only floor: a bare node:http2 server with the same certificates that answers every stream at header time with a prebuilt 429 (bench/baselines/bare-refuser.ts), flooded by the same load process at the same offered rate right after each run. Its 429 p99 is what the load client\'s 1,000 requests in flight and this machine allow for any Node server: with 1,000 outstanding, a 429 waits about 1,000 ÷ (answers per second), so 10 ms needs ≥ 100k answers/s.');
  section.notes.push('The load client (one Node process on the second core) cannot offer arbitrary rates; "offered/s" is what it actually sent, "held back" counts requests the schedule wanted while 1,000 were already in flight.');
  return section;
}
