/**
 * The big-store part of the run on one fresh server: load events through the API (timed), take RSS after 100k
 * and after all events (scenario 7), run the lists (3) and selective lists (4) at both sizes, walk every stored
 * event with limit=500 (3, issue 9), and resume a watch from a resourceVersion taken shortly before the end of the
 * bulk load (6). `listsOnly` (`--only=list`) stops after the lists of the two namespaces.
 */
import { h2Get, type BareServer, type RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { API_PREFIX, type EventSpec } from '../lib/event.ts';
import { rssOf, runChild, sampleRss, sleep } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import type { FetchResult } from '../load/fetch.ts';
import type { LoadResult } from '../load/http-load.ts';
import { addWalks, runLists, type ListCase } from './list.ts';
import { measureSelective, selectiveSection } from './selective.ts';

const MiB = 2 ** 20;

interface Loaded {
  label: string;
  count: number;
  r: LoadResult;
}

/** Creates `count` events through the API as fast as the load process can (c = cfg.loadConcurrency on two sessions). */
export async function load(cfg: BenchConfig, s: RunningServer, spec: EventSpec, start: number, count: number): Promise<LoadResult> {
  return runChild<LoadResult>(
    'load/http-load.ts',
    { origin: s.origin, creds: s.creds, transport: 'h2', sessions: 2, concurrency: cfg.loadConcurrency, count, durationMs: 15 * 60_000, method: 'POST', event: { ...spec, start } },
    16 * 60_000,
    'loader',
  );
}

/** Median of three RSS readings a second apart, after a short settle. */
async function settledRss(pid: number): Promise<number> {
  await sleep(2000);
  const xs: number[] = [];
  for (let i = 0; i < 3; i++) {
    xs.push(rssOf(pid));
    await sleep(1000);
  }
  return spread(xs).median;
}

async function currentRv(s: RunningServer): Promise<string> {
  const r = await h2Get(s.origin, `${API_PREFIX}/events?limit=1`, s.creds, 30_000);
  return (JSON.parse(r.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}

export async function runData(cfg: BenchConfig, s: RunningServer, bare: BareServer, log: (m: string) => void, listsOnly = false): Promise<Section[]> {
  const loads: Loaded[] = [];
  const rssEmpty = await settledRss(s.pid);
  const L = cfg.listLarge;
  const S = cfg.listSmall;

  loads.push({ label: `${fmt(L)} into one namespace`, count: L, r: await load(cfg, s, { namespace: 'list-large', namePrefix: 'e-' }, 0, L) });
  log(`  loaded ${fmt(L)}: ${fmt(loads.at(-1)!.r.okPerS)}/s`);
  const rssL = listsOnly ? 0 : await settledRss(s.pid);
  const selSmall = listsOnly ? undefined : await measureSelective(cfg, s, L, L / 10);
  if (selSmall) log('  selective lists at the smaller store done');

  loads.push({ label: `${fmt(S)} into another namespace`, count: S, r: await load(cfg, s, { namespace: 'list-small', namePrefix: 'e-' }, L, S) });
  const cases: ListCase[] = [
    { label: `${fmt(S)} JSON`, path: `${API_PREFIX}/namespaces/list-small/events`, events: S },
    { label: `${fmt(S)} Table`, path: `${API_PREFIX}/namespaces/list-small/events`, events: S, table: true },
    { label: `${fmt(L)} JSON`, path: `${API_PREFIX}/namespaces/list-large/events`, events: L, goals: true },
    { label: `${fmt(L)} Table`, path: `${API_PREFIX}/namespaces/list-large/events`, events: L, table: true, goals: true },
  ];
  const walks = [
    { label: `${fmt(S)} events (one namespace)`, path: `${API_PREFIX}/namespaces/list-small/events`, events: S },
    { label: `${fmt(L)} events (one namespace)`, path: `${API_PREFIX}/namespaces/list-large/events`, events: L },
  ];
  const lists = await runLists(cfg, s, bare, cases, walks, log);
  if (listsOnly) return [lists];

  // The resume point sits `replay` changes before the end of the bulk load: the replay volume stands in for an
  // hour of retention (1,000 events/s × 1 h = 3.6M) at a size that streams in seconds, not minutes.
  const bulk = cfg.bulkTotal - L - S;
  const replay = Math.min(bulk, cfg.resumeReplay);
  const sampler = sampleRss(s.pid, 200);
  const t0 = performance.now();
  const first = await load(cfg, s, { namespace: 'bulk', nsMod: 50, namePrefix: 'e-' }, L + S, bulk - replay);
  const rv = await currentRv(s);
  const second = await load(cfg, s, { namespace: 'bulk', nsMod: 50, namePrefix: 'e-' }, L + S + bulk - replay, replay);
  const secs = (performance.now() - t0) / 1000;
  loads.push({ label: `${fmt(bulk - replay)} over 50 namespaces`, count: bulk - replay, r: first });
  loads.push({ label: `${fmt(replay)} more (after the resume point), to ${fmt(cfg.bulkTotal)} stored`, count: replay, r: second });
  const bulkRate = (first.lat2xx.n + second.lat2xx.n) / secs;
  const loadPeak = sampler.stop().peak;
  log(`  loaded ${fmt(bulk)} more: ${fmt(bulkRate)}/s`);
  const rssBig = await settledRss(s.pid);
  const selBig = await measureSelective(cfg, s, cfg.bulkTotal, L / 10);
  log('  selective lists at the full store done');
  // Every stored event, across namespaces: what `kubectl get events -A` walks.
  await addWalks(cfg, s, bare, lists, [{ label: `${fmt(cfg.bulkTotal)} events (every namespace)`, path: `${API_PREFIX}/events`, events: cfg.bulkTotal }], log);

  const resumes: (FetchResult & { peak: number })[] = [];
  for (let r = 0; r < cfg.runs; r++) {
    const smp = sampleRss(s.pid, 50);
    const f = await runChild<FetchResult>('load/fetch.ts', { origin: s.origin, creds: s.creds, transport: 'h2', mode: 'watch', paths: [`${API_PREFIX}/events?watch=1&resourceVersion=${rv}`], expect: replay, timeoutMs: cfg.quick ? 30_000 : 180_000 }, 240_000, 'resume');
    const st = smp.stop();
    resumes.push({ ...f, peak: st.peak - st.start });
    log(`  resume run ${r + 1}: ${f.events}/${replay} events in ${fmt(f.totalMs)} ms, ${f.errorFrames} error frames`);
  }

  const mem = newSection('7. Memory and loading', `RSS of the server process (VmRSS), median of 3 readings 1 s apart after a 2 s settle. Bytes per event = (RSS − RSS of the empty server) ÷ events stored. Events are ~700 B of JSON as sent (about 1 KB as stored, with the server-set metadata). Loading: creates through the API over 2 HTTP/2 connections with ${cfg.loadConcurrency} in flight.`);
  mem.tables.push({
    head: ['stored events', 'RSS MiB', 'bytes per event (over empty)', 'RSS ÷ events'],
    rows: [
      ['0', fmt(rssEmpty / MiB), '–', '–'],
      [fmt(L), fmt(rssL / MiB), fmt((rssL - rssEmpty) / L), fmt(rssL / L)],
      [fmt(cfg.bulkTotal), fmt(rssBig / MiB), fmt((rssBig - rssEmpty) / cfg.bulkTotal), fmt(rssBig / cfg.bulkTotal)],
    ],
  });
  mem.tables.push({
    head: ['load', 'events', 'seconds', 'creates/s', 'p50 ms', 'p99 ms', 'non-2xx / errors'],
    rows: loads.map((l) => [l.label, fmt(l.count), fmt(l.r.durationS), fmt(l.r.okPerS), fmt(l.r.lat2xx.p50), fmt(l.r.lat2xx.p99), `${l.r.completed - l.r.lat2xx.n} / ${l.r.errors}`]),
  });
  mem.notes.push(`Loading all ${fmt(cfg.bulkTotal)} events through the API took ${fmt(loads.reduce((x, l) => x + l.r.durationS, 0))} s of load (bulk part: ${fmt(bulk)} in ${fmt(secs)} s, ${fmt(bulkRate)} creates/s). Peak RSS during the bulk load: ${fmt(loadPeak / MiB)} MiB.`);
  mem.goals.push(judge({ id: 'G7', text: `memory ≤ 2 KB RSS per stored event at ${fmt(cfg.bulkTotal)} events (watch cache included)`, direction: 'atMost', target: 2048 }, [(rssBig - rssEmpty) / cfg.bulkTotal]));

  const resume = newSection('6. Resume', `A watch at cluster scope from a resourceVersion taken ${fmt(replay)} creates before the end of the bulk load (${fmt(cfg.bulkTotal)} events stored; the volume stands in for an hour of retention) must stream every change since, without 410 Gone.`);
  resume.tables.push({
    head: ['changes to replay', 'seconds', 'events/s', 'MB/s', 'first byte ms', 'events received', 'ERROR frames', 'extra RSS MiB'],
    rows: [[fmt(replay), fmtSpread(spread(resumes.map((r) => r.totalMs / 1000))), fmtSpread(spread(resumes.map((r) => (r.events ?? 0) / (r.totalMs / 1000)))), fmtSpread(spread(resumes.map((r) => r.bytes / 1e6 / (r.totalMs / 1000)))), fmtSpread(spread(resumes.map((r) => r.ttfb.p50))), resumes.map((r) => String(r.events)).join(', '), resumes.map((r) => String(r.errorFrames)).join(', '), fmtSpread(spread(resumes.map((r) => r.peak / MiB)))]],
  });
  const firstErr = resumes.find((r) => r.firstErrorFrame)?.firstErrorFrame;
  if (firstErr) resume.notes.push(`First ERROR frame: \`${firstErr}\``);
  const reqErr = resumes.find((r) => r.requestError)?.requestError;
  if (reqErr) resume.notes.push(`Watch request failed: ${reqErr}`);
  resume.notes.push(`Per run — HTTP status, and what ended the read (expected = every change arrived; server = the server closed the stream early): ${resumes.map((r) => `${Object.keys(r.status).join('/')} ${r.endedBy ?? '?'}`).join('; ')}.`);
  resume.goals.push(judge({ id: 'G10', text: `resume from a resourceVersion ${fmt(replay)} changes old without 410: events missing per run`, direction: 'atMost', target: 0 }, resumes.map((r) => replay - (r.events ?? 0)), { ok: resumes.every((r) => r.errorFrames === 0 && r.status['200'] !== undefined && !r.requestError), why: 'ERROR frame (410), non-200 answer or failed request' }));

  return [lists, selectiveSection(selSmall!, selBig), resume, mem];
}
