/**
 * `npm run bench [-- --quick] [-- --only=create,get,…] [-- --out=FILE]`: the benchmark of issue 4 (and issue 9's
 * paged walk, issue 10's metrics cost, issue 11's token cost, issue 12's RBAC cost, issue 13's encryption cost, issue 14's etcd-backed creates and lists). Steps: create, get, autocannon, calibration, watch, metrics, token, rbac, encryption, etcd, etcd-create, etcd-list, durable, overload, data (lists, walks,
 * selective lists, resume, memory); `list` alone runs only the lists and walks of the data step.
 * Starts the real server as a user would (child process, HTTPS, client certificate, embedded SQLite), drives it
 * from separate load processes, measures the bare-Node baselines and raw etcd in the same run, and writes
 * BENCHMARKS.md with every figure as min / median / max and every goal of issue 4 met or not, with the gap.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, startBareServer, type BareServer, type RunningServer } from './lib/apiserver.ts';
import { benchConfig } from './lib/config.ts';
import { fsyncProbe, machineInfo } from './lib/machine.ts';
import { ROOT } from './lib/proc.ts';
import { newSection, writeReport, type Section } from './lib/report.ts';
import { fmt, judge, spread } from './lib/stats.ts';
import { ensureApt, ensureEtcd3 } from './lib/tools.ts';
import type { Transport } from './lib/transport.ts';
import { runCalibration } from './scenarios/calibration.ts';
import { runCreates, type CreateRun } from './scenarios/create.ts';
import { runData } from './scenarios/data.ts';
import { runEtcd } from './scenarios/etcd.ts';
import { runEtcdCreate } from './scenarios/etcd-create.ts';
import { runEtcdList } from './scenarios/etcd-list.ts';
import { runGets } from './scenarios/get.ts';
import { runMetricsCost } from './scenarios/metrics-cost.ts';
import { runTokenAuthCost } from './scenarios/token-auth.ts';
import { runRbacCost } from './scenarios/rbac-cost.ts';
import { runEncryptionCost } from './scenarios/encryption-cost.ts';
import { runOverload } from './scenarios/overload.ts';
import { runWatch } from './scenarios/watch.ts';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const only = argv.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const out = argv.find((a) => a.startsWith('--out='))?.slice(6) ?? (only ? join(tmpdir(), 'BENCHMARKS.partial.md') : join(ROOT, 'BENCHMARKS.md'));
const cfg = benchConfig(quick);
const t0 = Date.now();
const log = (m: string) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${m}\n`);
const wanted = (name: string) => !only || only.includes(name);
const sections: Section[] = [];
const skipped: string[] = [];

/** Runs one scenario: failures and an exhausted time budget become notes in the report, not a crash. */
async function step(name: string, title: string, fn: () => Promise<Section | Section[]>): Promise<void> {
  if (!wanted(name)) return;
  if (Date.now() - t0 > cfg.budgetMs) {
    skipped.push(`${title}: skipped, the run's time budget (${cfg.budgetMs / 1000} s) was used up`);
    log(`skip ${title}`);
    return;
  }
  log(title);
  try {
    const r = await fn();
    sections.push(...(Array.isArray(r) ? r : [r]));
  } catch (e) {
    const s = newSection(title);
    s.notes.push(`**Failed:** ${e instanceof Error ? e.message.split('\n').slice(0, 6).join(' ') : String(e)}`);
    sections.push(s);
    log(`${title} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A real server and a bare server with the same certificates, stopped afterwards whatever happens. */
async function withServers(extraArgs: string[], fn: (s: RunningServer, b: BareServer) => Promise<void>): Promise<void> {
  const s = await startApiServer(extraArgs);
  const b = await startBareServer(s.dataDir);
  try {
    await fn(s, b);
  } finally {
    await b.stop();
    await s.stop();
  }
}

const matrix = (ts: Transport[], cs: number[]) => ts.flatMap((transport) => cs.map((concurrency) => ({ transport, concurrency })));
const medianRate = (runs: CreateRun[], t: Transport, c: number) => spread(runs.find((r) => r.transport === t && r.concurrency === c)?.ours.map((x) => x.okPerS) ?? []).median;

async function main(): Promise<void> {
  const machine = machineInfo();
  machine.fsync = await fsyncProbe(tmpdir());
  log(`mode ${quick ? 'quick' : 'full'}; ${machine.nproc} CPUs, ${machine.cpuModel}; writing ${out}`);
  const tools = {
    wrk: ensureApt('wrk', 'wrk'),
    h2load: ensureApt('h2load', 'nghttp2-client'),
    etcd: ensureApt('etcd', 'etcd-server'),
    ...(() => {
      const e = ensureEtcd3();
      return { ...(e.dir ? { etcd3Dir: e.dir } : {}), etcd3Note: e.note };
    })(),
  };
  log(`tools: ${[tools.wrk.note, tools.h2load.note, tools.etcd.note, tools.etcd3Note].join('; ')}`);

  let normal: CreateRun[] = [];
  await withServers([], async (s, b) => {
    await step('create', '1. Create', async () => {
      const r = await runCreates(cfg, s, b, { title: '1. Create (synchronous=NORMAL, the default)', intro: `Closed-loop creates of ~700 B events into one namespace; ${cfg.pairs} A/B pairs of ${cfg.runMs / 1000} s runs per row (first of each with ${cfg.warmupMs / 1000} s unrecorded warm-up). HTTP/2: one connection carrying c concurrent streams; HTTP/1.1: c keep-alive connections.`, goalPrefix: 'G1', matrix: matrix(['h2', 'h1'], cfg.concurrencies), namespace: 'bench-create', rateTarget: 0.5, latencyGoals: true }, log);
      normal = r.runs;
      return r.section;
    });
    await step('get', '2. Get by name', () => runGets(cfg, s, b, matrix(quick ? ['h2'] : ['h2', 'h1'], [64]), log));
    if (!quick) {
      await step('autocannon', 'autocannon cross-check', async () => (await runCreates({ ...cfg, pairs: 3 }, s, b, { title: 'Cross-check: create at c=64 over HTTP/1.1 with autocannon', intro: 'The same A/B as scenario 1 with autocannon 9 (client certificate via its tlsOptions; latencies from its per-response event) instead of the bench\'s Node load process. Figures only; the goals are judged on scenario 1.', goalPrefix: 'AC', matrix: [{ transport: 'h1', concurrency: 64 }], namespace: 'bench-create-ac', rateTarget: 0.5, latencyGoals: false, judgeGoals: false, tool: 'autocannon' }, log)).section);
    }
    await step('calibration', 'Load-client calibration', () => {
      const rates = (t: Transport) => normal.find((r) => r.transport === t && r.concurrency === 64)?.bare.map((x) => x.okPerS) ?? [];
      return runCalibration(cfg, b, tools, { h1: rates('h1'), h2: rates('h2') });
    });
    await step('watch', '5. Watch fan-out', () => runWatch(cfg, s, b, quick ? ['h2'] : ['h2', 'h1'], log));
  });

  await step('metrics', '10. The cost of metrics', () => runMetricsCost(cfg, log));

  await step('token', '11. Bearer token vs client certificate', () => runTokenAuthCost(cfg, log));

  await step('rbac', '12. A user allowed by RBAC vs an admin', () => runRbacCost(cfg, log));

  await step('encryption', '13. The cost of encryption at rest', () => runEncryptionCost(cfg, log));

  await step('etcd', 'etcd put rate', () => runEtcd(cfg, tools, (c) => medianRate(normal, 'h2', c), log));

  await step('etcd-create', '14. Create through the etcd backend', () => runEtcdCreate(cfg, tools, log));

  await step('etcd-list', '14b. List on the etcd backend', () => runEtcdList(cfg, tools, log));

  await step('durable', '1b. Durable create', async () => {
    let section!: Section;
    await withServers(['--sqlite-synchronous=FULL'], async (s, b) => {
      const r = await runCreates(cfg, s, b, { title: '1b. Create with --sqlite-synchronous=FULL (acknowledged after fsync)', intro: `As scenario 1 on a fresh server started with \`--sqlite-synchronous=FULL\`. fsync on this machine: ${machine.fsync} (typical cloud persistent disks: 0.5–2 ms; the cheaper fsync is here, the more optimistic these figures).`, goalPrefix: 'G3', matrix: quick ? [{ transport: 'h2', concurrency: 64 }, { transport: 'h2', concurrency: 1 }] : [{ transport: 'h2', concurrency: 64 }, { transport: 'h1', concurrency: 64 }, { transport: 'h2', concurrency: 1 }], namespace: 'bench-durable', rateTarget: 0.3, latencyGoals: false }, log);
      const c1 = r.runs.find((x) => x.concurrency === 1)!;
      r.section.goals.push(judge({ id: 'G3e', text: 'durable: the wait for a group is bounded — c=1 HTTP/2 p50 minus bare p50 (group wait + fsync + work) ≤ 2 ms', direction: 'atMost', target: 2 }, c1.ours.map((x, i) => x.lat2xx.p50 - c1.bare[i]!.lat2xx.p50)));
      section = r.section;
    });
    return section;
  });

  await step('overload', '8. Overload', async () => {
    let section!: Section;
    const sustainable = medianRate(normal, 'h2', 64);
    await withServers(['--max-requests-inflight=400', '--max-mutating-requests-inflight=200'], async (s) => {
      section = await runOverload(cfg, s, Number.isFinite(sustainable) ? sustainable : 5000, log);
    });
    return section;
  });

  await step('data', `3/4/6/7. Lists, selective lists, resume, memory (${fmt(cfg.bulkTotal)} events)`, async () => {
    let out: Section[] = [];
    await withServers([], async (s, b) => {
      out = await runData(cfg, s, b, log);
    });
    return out;
  });

  // `--only=list`: the lists and walks of scenario 3 alone (its two namespaces loaded, no bulk load), which `data`
  // includes; a run without --only does them once, there.
  if (only?.includes('list') && !only.includes('data')) {
    await step('list', '3. Lists and paged walks', async () => {
      let out: Section[] = [];
      await withServers([], async (s, b) => {
        out = await runData(cfg, s, b, log, true);
      });
      return out;
    });
  }

  const order = ['1. ', '1b.', 'Raw etcd', '2. ', '3. ', '4. ', '5. ', '6. ', '7. ', '8. ', 'Cross', 'Load-client'];
  const rank = (t: string) => {
    const i = order.findIndex((p) => t.startsWith(p));
    return i < 0 ? order.length : i;
  };
  sections.sort((a, b) => rank(a.title) - rank(b.title));
  const preamble = [
    '## How this was measured',
    '',
    '- **Server**: `node --import tsx src/cmd/core-apiserver.ts --data-dir=<fresh tmp dir> --secure-port=<free port>` (what `npm start` runs), HTTPS with HTTP/2 and HTTP/1.1 on one port, the generated ECDSA P-256 certificates, the admin client certificate from `<data-dir>/admin.kubeconfig`, embedded SQLite in WAL mode. A fresh server (fresh data dir) for each part: creates/get/watch, durable (FULL), overload, and the big store.',
    '- **Baselines** run in the same run, alternating with the server: a bare `node:http2` secure server (HTTP/1.1 fallback, the same server certificate and client-CA settings, no framework, no storage) — POST parse + serialize + 201, a fixed 1 KB GET, a prebuilt buffer of the list\'s byte count, a watch fan-out that serializes each event once; and a local etcd through the etcd3 client.',
    '- **Load**: every load runs in its own process. wrk and h2load cannot present a client certificate (wrk has no option; Debian\'s h2load 1.52 neither), and the server requires one, so the measured load comes from the bench\'s own small Node load process (`bench/load/http-load.ts`: node:http2 sessions with multiplexed streams, or node:https keep-alive connections, closed loop or open loop, latencies per request at µs resolution). autocannon was tried for HTTP/1.1 and is kept as a cross-check: its client is slower than node:https here and its histogram is whole milliseconds. wrk and h2load measure the bare server (no client certificate needed there) to show how much the Node client itself limits the baseline. Scenario 14 (creates through etcd) also drives the real server with h2load, authenticated by a bearer token from `--token-auth-file`, as the reference drove kube-apiserver with wrk; its goal is judged on that arm, the Node client\'s figures beside it.',
    '- **Statistics**: each figure is min / **median** / max over ≥ 3 runs; each ratio goal uses ≥ ' + cfg.pairs + ' alternating A/B pairs and holds when the median pair ratio meets the target and the worst pair is within 20 % of it.',
    `- **Machine caveat**: ${machine.nproc} CPUs shared by server, load client and baselines; the server is single-threaded Node, and the load client needs most of the other core. Server CPU per request (from /proc) is reported next to throughput because it does not depend on the client.`,
    ...(skipped.length ? ['', ...skipped.map((s) => `- ${s}`)] : []),
  ];
  // Every goal's raw values next to the report, for anyone re-judging or plotting without a re-run.
  writeFileSync(join(tmpdir(), `bench-goals-${quick ? 'quick' : 'full'}.json`), JSON.stringify({ machine, sections: sections.map((x) => ({ title: x.title, goals: x.goals })) }, null, 1));
  writeReport(out, { machine, mode: quick ? 'quick' : 'full', elapsedMs: Date.now() - t0, loadavgEnd: machineInfo().loadavg, preamble, sections });
  log(`wrote ${out} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
