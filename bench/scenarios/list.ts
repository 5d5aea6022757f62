/**
 * Scenario 3: lists of one namespace (JSON, and Table as kubectl asks for it), each alternating with the bare server
 * streaming a prebuilt buffer of the same byte count over the same transport; the server's RSS is sampled every
 * 5 ms during each list for the extra memory it takes. Then limit=500 walks against full lists (walk.ts).
 */
import type { BareServer, RunningServer } from '../lib/apiserver.ts';
import type { BenchConfig } from '../lib/config.ts';
import { curlGet, type CurlTiming } from '../lib/curl.ts';
import { runChild, sampleRss } from '../lib/proc.ts';
import { newSection, type Section } from '../lib/report.ts';
import { fmt, fmtSpread, judge, spread } from '../lib/stats.ts';
import { ensureApt } from '../lib/tools.ts';
import type { FetchResult } from '../load/fetch.ts';
import { runWalks, WALK_HEAD, WALK_LIMIT, WALK_TARGET, type WalkCase } from './walk.ts';

export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

export interface ListCase {
  label: string;
  path: string;
  events: number;
  table?: boolean;
  /** Judge the list goals on this case. */
  goals?: boolean;
}

interface OursRun extends FetchResult {
  extraRss: number;
}

const MB = 1e6;

function fetchArgs(origin: string, s: RunningServer, mode: 'get' | 'paginate', path: string, headers?: Record<string, string>) {
  return { origin, creds: s.creds, transport: 'h2', mode, paths: [path], ...(headers ? { headers } : {}) };
}

/** Another section's lists judged by the same rules (issue 14's lists on etcd): its title, intro and goal ids. */
export interface ListSectionOptions {
  title: string;
  intro: string;
  /** Ids of the MB/s, first-byte and RSS goals (scenario 3's are G5a, G5b, G5c). */
  goalIds: [string, string, string];
  /** Each case's medians, for a comparison table of the caller's. */
  onCase?: (c: ListCase, median: { totalMs: number; ttfbMs: number; bytes: number }) => void;
}

export async function runLists(cfg: BenchConfig, s: RunningServer, bare: BareServer, cases: ListCase[], walks: WalkCase[], log: (m: string) => void, opts?: ListSectionOptions): Promise<Section> {
  const section = newSection(
    opts?.title ?? '3. List',
    opts?.intro ?? 'One namespace listed whole over HTTP/2 (JSON; Table with kubectl\'s Accept header). Baseline: the bare server sending a prebuilt buffer of the same number of bytes in one response. MB/s = bytes ÷ time to last byte. Extra RSS = server peak RSS during the list − RSS before it.',
  );
  const [ga, gb, gc] = opts?.goalIds ?? ['G5a', 'G5b', 'G5c'];
  const curl = ensureApt('curl', 'curl');
  const rows: string[][] = [];
  const firstBytes: string[][] = [];
  for (const c of cases) {
    const ours: OursRun[] = [];
    const bares: FetchResult[] = [];
    const curls: CurlTiming[] = [];
    for (let i = 0; i < cfg.pairs; i++) {
      const sampler = sampleRss(s.pid, 5);
      const o = await runChild<FetchResult>('load/fetch.ts', fetchArgs(s.origin, s, 'get', c.path, c.table ? { accept: TABLE_ACCEPT } : undefined), 300_000, `list ${c.label}`);
      const rss = sampler.stop();
      ours.push({ ...o, extraRss: rss.peak - rss.start });
      bares.push(await runChild<FetchResult>('load/fetch.ts', fetchArgs(bare.origin, s, 'get', `/buf?bytes=${o.bytes}`), 300_000, 'bare buffer'));
      if (c.goals && curl.ok) curls.push(await curlGet(s.origin, c.path, s.creds, c.table ? { accept: TABLE_ACCEPT } : {}));
    }
    if (curls.length) {
      firstBytes.push([
        c.label,
        fmtSpread(spread(curls.map((x) => x.firstByteMs))),
        fmtSpread(spread(curls.map((x) => x.connectMs))),
        fmtSpread(spread(curls.map((x) => x.serverFirstByteMs))),
        fmtSpread(spread(ours.map((o) => o.ttfb.p50))),
        curls.every((x) => x.status === 200 && x.bytes > 0) ? '200' : JSON.stringify(curls.map((x) => x.status)),
      ]);
    }
    const mbps = (f: FetchResult) => f.bytes / MB / (f.totalMs / 1000);
    const ratios = ours.map((o, i) => mbps(o) / mbps(bares[i]!));
    const okStatus = ours.every((o) => Object.keys(o.status).every((k) => k === '200'));
    rows.push([
      c.label,
      fmt(spread(ours.map((o) => o.bytes)).median / MB),
      fmtSpread(spread(ours.map((o) => o.totalMs))),
      fmtSpread(spread(ours.map(mbps))),
      fmtSpread(spread(bares.map(mbps))),
      fmtSpread(spread(ratios)),
      fmtSpread(spread(ours.map((o) => o.ttfb.p50))),
      fmtSpread(spread(ours.map((o) => o.extraRss / 2 ** 20))),
      okStatus ? '200' : JSON.stringify(ours.map((o) => o.status)),
    ]);
    log(`  list ${c.label}: ${fmt(spread(ours.map((o) => o.totalMs)).median)} ms, ratio ${fmt(spread(ratios).median)}`);
    opts?.onCase?.(c, { totalMs: spread(ours.map((o) => o.totalMs)).median, ttfbMs: spread(ours.map((o) => o.ttfb.p50)).median, bytes: spread(ours.map((o) => o.bytes)).median });
    if (c.goals) {
      const extra = { ok: okStatus, why: 'some lists did not answer 200' };
      section.goals.push(judge({ id: ga, text: `list ${c.label}: MB/s ≥ 0.5 × bare buffer stream`, direction: 'atLeast', target: 0.5 }, ratios, extra));
      // Judged as the reference measured it (curl on a new connection, the handshake included); without curl, on
      // the Node fetch process's first byte, which carries its own cold handshake.
      const byCurl = curls.length > 0;
      const curlOk = curls.every((x) => x.status === 200 && x.bytes > 0);
      section.goals.push(judge({ id: gb, text: `list ${c.label}: first byte ≤ 20 ms (${byCurl ? 'curl, new connection' : 'Node fetch process, new connection'})`, direction: 'atMost', target: 20 }, byCurl ? curls.map((x) => x.firstByteMs) : ours.map((o) => o.ttfb.p50), byCurl ? { ok: curlOk, why: 'some curl lists did not answer 200' } : undefined));
      section.goals.push(judge({ id: gc, text: `list ${c.label}: extra server RSS during the list ≤ 32 MB`, direction: 'atMost', target: 32 }, ours.map((o) => o.extraRss / 2 ** 20)));
    }
  }
  section.tables.push({ head: ['list', 'MB', 'ours ms', 'ours MB/s', 'bare MB/s', 'ratio (per pair)', 'first byte ms', 'extra RSS MiB', 'status'], rows });
  if (firstBytes.length) {
    section.tables.push({
      caption: `**First byte of the judged lists**, min / **median** / max over the pairs, ms. The goal's figure is curl's (C; HTTP/2 with the admin client certificate, one GET on a new connection per pair, timed by curl: \`time_starttransfer\`), as the reference measured kube-apiserver's, the TLS handshake included; the handshake alone (\`time_appconnect\`) and the server's part (request sent to first byte: \`time_starttransfer − time_pretransfer\`) beside it. The "first byte ms" column above is the Node fetch process's, whose first request also pays its cold TLS handshake (~15–40 ms here).`,
      head: ['list', 'first byte (curl)', 'TLS handshake done (curl)', 'server: request → first byte (curl)', 'first byte (Node fetch process)', 'status'],
      rows: firstBytes,
    });
  } else if (cases.some((c) => c.goals)) section.notes.push(`First-byte goals judged on the Node fetch process (${curl.note}).`);
  await addWalks(cfg, s, bare, section, walks, log);
  return section;
}

/**
 * Issue 9: walks with limit=500 against one full list of the same events, as a table of its own in this section
 * (called again after the bulk load for the walk of every stored event).
 */
export async function addWalks(cfg: BenchConfig, s: RunningServer, bare: BareServer, section: Section, walks: WalkCase[], log: (m: string) => void): Promise<void> {
  if (!walks.length) return;
  const r = await runWalks(cfg, s, bare, walks, log);
  let t = section.tables.find((x) => x.head === WALK_HEAD);
  if (!t) {
    t = {
      caption: `**Paged walk against one full list (issue 9, goal I9).** \`?limit=${WALK_LIMIT}\`, then \`&continue=<token>\` until the last page, one request at a time on one HTTP/2 connection (how kubectl pages every \`get\`), against one full list of the same events in the same pair: ratio = walk time ÷ full-list time, goal ≤ ${WALK_TARGET}. The client parses neither body. Server CPU from /proc around each fetch. Bare: the bare server's buffer of the full list's bytes, and as many sequential GETs of a buffer of the average page's bytes as the walk had pages; its ratio is what the extra requests cost a server that does nothing else (the floor on this machine with this client).`,
      head: WALK_HEAD,
      rows: [],
    };
    section.tables.push(t);
  }
  t.rows.push(...r.rows);
  section.goals.push(...r.goals);
}
