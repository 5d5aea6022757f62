/**
 * The fuzz run of issue 8 (`npm run fuzz`, and its short form in test/fuzz.test.ts): starts the server as a user does
 * (`node --import tsx src/cmd/core-apiserver.ts --data-dir=<tmp> --secure-port=<free>`, bench/lib/apiserver.ts),
 * starts the load process (bench/fuzz/load.ts) separately so that a server crash never takes the recorder with it,
 * and records meanwhile: the server's RSS every second, `/readyz` every second on its own connection, the server's
 * exit (code, signal, stderr tail) should it die, and at the end the load's tallies. The verdict fails on a dead
 * server, an undocumented 5xx, any other bad answer, a broken watch, a failed `/readyz`, RSS growth over the bound
 * after warm-up, an unhandled error in the server's log, or an unclean shutdown.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join, resolve } from 'node:path';
import { startApiServer, type RunningServer } from '../lib/apiserver.ts';
import { BENCH_DIR, ROOT, rssOf } from '../lib/proc.ts';
import type { LoadArgs, LoadProgress, LoadResult } from './load.ts';

export interface FuzzOptions {
  requests: number;
  seed: number;
  concurrency: number;
  /** HTTP/2 sessions the requests share (about half the requests go over HTTP/2). */
  h2Sessions: number;
  /** Watches with hostile selectors kept open during the run. */
  watches: number;
  /** Deeply nested YAML bodies (issue 8); on by default. */
  deepYaml: boolean;
  /** Issue 8's burst of deep flow-YAML creates on one HTTP/2 connection, a quarter of the way in. */
  issue8: boolean;
  /** Resend the requests of this file (last-requests.json, failures.json) in order instead of generating. */
  replay?: string;
  outDir: string;
  /** Allowed RSS growth from the end of warm-up to the end of the run (medians of the samples around each). */
  rssBoundMiB: number;
  /** Share of the requests sent before the RSS baseline is taken. */
  warmupFraction: number;
  /** The run stops (and fails) after this long. */
  maxMs: number;
  serverArgs: string[];
  log: (m: string) => void;
}

export const DEFAULTS: FuzzOptions = {
  requests: 100_000,
  seed: 8,
  concurrency: 32,
  h2Sessions: 4,
  watches: 16,
  deepYaml: true,
  issue8: true,
  outDir: join(ROOT, '.tmp', 'fuzz'),
  rssBoundMiB: 96,
  warmupFraction: 0.5,
  maxMs: 60 * 60_000,
  serverArgs: [],
  log: (m) => process.stderr.write(`${m}\n`),
};

export interface RssSample {
  tMs: number;
  sent: number;
  rssMiB: number;
}

export interface FuzzResult {
  options: Omit<FuzzOptions, 'log'>;
  startedAt: string;
  elapsedMs: number;
  passed: boolean;
  failures: string[];
  server: {
    died: { code: number | null; signal: string | null; afterMs: number; sentBefore: number } | undefined;
    stderrTail: string;
    unhandledErrorLines: string[];
    shutdownExit: { code: number | null; signal: string | null } | undefined;
  };
  rss: { samples: number; firstMiB: number; minMiB: number; maxMiB: number; lastMiB: number; afterWarmupMiB: number; growthAfterWarmupMiB: number; boundMiB: number; series: RssSample[] };
  readyz: { polls: number; ok: number; non200: number; errors: number; maxLatencyMs: number; firstFailures: string[] };
  load: LoadResult | undefined;
  loadError: string | undefined;
  files: { result: string; summary: string; lastRequests?: string; failures?: string };
}

const MiB = 2 ** 20;

/** Runs one fuzz run; never throws for what the server does (that is the result), only for a broken set-up. */
export async function runFuzz(partial: Partial<FuzzOptions> = {}): Promise<FuzzResult> {
  const o: FuzzOptions = { ...DEFAULTS, ...partial };
  const outDir = resolve(o.outDir);
  mkdirSync(outDir, { recursive: true });
  const t0 = Date.now();
  const startedAt = new Date().toISOString();
  const log = (m: string) => o.log(`[fuzz ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${m}`);

  const server: RunningServer = await startApiServer(o.serverArgs, 'core-apiserver (fuzz)');
  log(`server pid ${server.pid} on ${server.origin}, data dir ${server.dataDir}`);
  const proc = server.child.proc;
  let stderrTail = server.child.stderr;
  const unhandled: string[] = [];
  proc.stderr!.on('data', (d: string | Buffer) => {
    const s = d.toString();
    stderrTail = (stderrTail + s).slice(-20_000);
    for (const line of s.split('\n')) if (/Unhandled error|Fatal error|uncaught|RangeError|Maximum call stack/i.test(line) && unhandled.length < 50) unhandled.push(line.slice(0, 500));
  });

  let latest: LoadProgress | undefined;
  let died: FuzzResult['server']['died'];
  let diedAtWall = 0;
  const deathSeen = new Promise<void>((res) =>
    proc.once('exit', (code, signal) => {
      diedAtWall = Date.now();
      if (!stopRequested) {
        died = { code, signal, afterMs: Date.now() - t0, sentBefore: latest?.sent ?? 0 };
        log(`SERVER DIED: exit code ${code}, signal ${signal}, after ${latest?.sent ?? 0} requests`);
      }
      res();
    }),
  );
  let stopRequested = false;

  // RSS and /readyz, every second.
  const series: RssSample[] = [];
  const readyz = { polls: 0, ok: 0, non200: 0, errors: 0, maxLatencyMs: 0, firstFailures: [] as string[] };
  const readyAgent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.creds.ca });
  let polling = false;
  const pollReadyz = async () => {
    if (polling || died) return;
    polling = true;
    const started = Date.now();
    readyz.polls++;
    try {
      const r = await getOnce(server.port, readyAgent, '/readyz', 5000);
      readyz.maxLatencyMs = Math.max(readyz.maxLatencyMs, Date.now() - started);
      if (r.status === 200) readyz.ok++;
      else if (!died) {
        readyz.non200++;
        if (readyz.firstFailures.length < 20) readyz.firstFailures.push(`${new Date().toISOString()} ${r.status} ${r.body.slice(0, 300)}`);
      }
    } catch (e) {
      if (!died && !stopRequested) {
        readyz.errors++;
        if (readyz.firstFailures.length < 20) readyz.firstFailures.push(`${new Date().toISOString()} ${(e as Error).message}`);
      }
    } finally {
      polling = false;
    }
  };
  const sampler = setInterval(() => {
    if (died) return;
    const rss = rssOf(server.pid);
    if (Number.isFinite(rss)) series.push({ tMs: Date.now() - t0, sent: latest?.sent ?? 0, rssMiB: rss / MiB });
    void pollReadyz();
  }, 1000);

  // The load process.
  const loadArgs: LoadArgs = {
    port: server.port,
    kubeconfig: server.kubeconfig,
    outDir,
    requests: o.requests,
    seed: o.seed,
    concurrency: o.concurrency,
    h2Sessions: o.h2Sessions,
    watches: o.watches,
    deepYaml: o.deepYaml,
    issue8: o.issue8,
    ...(o.replay ? { replay: resolve(o.replay) } : {}),
    ring: 200,
  };
  // FUZZ_LOAD_NODE_ARGS adds Node options to the load process for a diagnosis, e.g. `--cpu-prof`.
  const loadNodeArgs = (process.env.FUZZ_LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const load = spawn(process.execPath, [...loadNodeArgs, '--import', 'tsx', join(BENCH_DIR, 'fuzz', 'load.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, BENCH_ARGS: JSON.stringify(loadArgs) },
  });
  let loadStderr = '';
  load.stderr!.on('data', (d: Buffer) => (loadStderr = (loadStderr + d.toString()).slice(-8000)));
  let resultFile: string | undefined;
  let lastLogged = 0;
  let buf = '';
  load.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const m = /^@@(\w+) (.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'progress') {
        latest = JSON.parse(m[2]!) as LoadProgress;
        if (Date.now() - lastLogged >= 10_000) {
          lastLogged = Date.now();
          const rss = series.at(-1)?.rssMiB;
          log(`${latest.sent} sent, ${latest.inflight} in flight; ${JSON.stringify(latest.byClass)}; problems ${latest.problems}, undocumented 5xx ${latest.undocumented5xx}; watches open ${latest.watches.open}; RSS ${rss?.toFixed(0)} MiB; readyz non-200 ${readyz.non200 + readyz.errors}`);
        }
      } else if (m[1] === 'result') resultFile = (JSON.parse(m[2]!) as { file: string }).file;
    }
  });
  const loadExit = new Promise<number | null>((res) => load.once('exit', (code) => res(code)));
  const stopLoad = (why: string) => {
    if (load.exitCode === null) load.stdin!.write(`stop ${why}\n`);
  };
  void deathSeen.then(() => died && stopLoad(`the server died died=${diedAtWall}`));
  const deadline = setTimeout(() => {
    log(`time limit of ${o.maxMs / 1000} s reached: stopping`);
    stopLoad('time limit');
  }, o.maxMs);
  // Should the load process hang after a stop, end it.
  const loadExitCode = await Promise.race([loadExit, deathSeen.then(() => (died ? Promise.race([loadExit, sleep(60_000).then(() => 'hung' as const)]) : loadExit))]);
  clearTimeout(deadline);
  if (loadExitCode === 'hung') load.kill('SIGKILL');
  let loadResult: LoadResult | undefined;
  let loadError: string | undefined;
  try {
    if (!resultFile) throw new Error(`load process exited (${String(loadExitCode)}) without a result: ${loadStderr.slice(-2000)}`);
    loadResult = JSON.parse(readFileSync(resultFile, 'utf8')) as LoadResult;
  } catch (e) {
    loadError = (e as Error).message;
  }

  if (died && loadResult?.sentBeforeDeath !== undefined) died.sentBefore = loadResult.sentBeforeDeath;

  // Final checks on a live server, then a graceful stop.
  clearInterval(sampler);
  if (!died) {
    const rss = rssOf(server.pid);
    if (Number.isFinite(rss)) series.push({ tMs: Date.now() - t0, sent: latest?.sent ?? 0, rssMiB: rss / MiB });
    while (polling) await sleep(50);
    await pollReadyz();
  }
  readyAgent.destroy();
  stopRequested = true;
  let shutdownExit: FuzzResult['server']['shutdownExit'];
  if (!died) {
    const exited = new Promise<{ code: number | null; signal: string | null }>((res) => proc.once('exit', (code, signal) => res({ code, signal })));
    await server.stop();
    shutdownExit = await exited;
  } else await server.stop();

  // RSS: flat means the median of the last tenth of the run exceeds the median around the end of warm-up by less
  // than the bound. Medians, because 32 requests in flight with bodies of up to 3 MiB swing single samples by tens
  // of MiB; warm-up, because the watch cache's history fills its byte budget and V8 its working heap meanwhile.
  const median = (xs: RssSample[]) => {
    const v = xs.map((x) => x.rssMiB).sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)]! : NaN;
  };
  const around = (from: number, to: number) => series.filter((x) => x.sent >= from * o.requests && x.sent <= to * o.requests);
  const warmSamples = around(o.warmupFraction - 0.05, o.warmupFraction + 0.05);
  const lastSamples = around(0.9, 1);
  const warm = warmSamples.length ? { rssMiB: median(warmSamples) } : series[0];
  const last = lastSamples.length ? { rssMiB: median(lastSamples) } : series.at(-1);
  const rss: FuzzResult['rss'] = {
    samples: series.length,
    firstMiB: series[0]?.rssMiB ?? NaN,
    minMiB: Math.min(...series.map((s) => s.rssMiB)),
    maxMiB: Math.max(...series.map((s) => s.rssMiB)),
    lastMiB: last?.rssMiB ?? NaN,
    afterWarmupMiB: warm?.rssMiB ?? NaN,
    growthAfterWarmupMiB: (last?.rssMiB ?? NaN) - (warm?.rssMiB ?? NaN),
    boundMiB: o.rssBoundMiB,
    series,
  };

  const failures: string[] = [];
  if (died) failures.push(`the server died (exit code ${died.code}, signal ${died.signal}) after ${died.sentBefore} requests; the last requests sent are in ${loadResult?.lastRequestsFile ?? 'last-requests.json'} (replay with --replay)`);
  if (loadError) failures.push(`the load process failed: ${loadError}`);
  if (loadResult) {
    if (loadResult.undocumented5xx > 0) failures.push(`${loadResult.undocumented5xx} undocumented 5xx answers`);
    if (loadResult.problems > 0) failures.push(`${loadResult.problems} bad answers of ${loadResult.problemKinds.length} kinds`);
    if (loadResult.watchStats.failed > 0) failures.push(`${loadResult.watchStats.failed} watches ended neither as a clean stream nor with a 4xx Status`);
    if (!died && loadResult.stoppedEarly) failures.push(`the load stopped early: ${loadResult.stoppedEarly}`);
  }
  if (readyz.non200 + readyz.errors > 0) failures.push(`/readyz failed ${readyz.non200 + readyz.errors} of ${readyz.polls} polls`);
  if (!(rss.growthAfterWarmupMiB < o.rssBoundMiB)) failures.push(`RSS grew by ${rss.growthAfterWarmupMiB.toFixed(0)} MiB after warm-up (bound ${o.rssBoundMiB} MiB)`);
  if (unhandled.length) failures.push(`the server logged ${unhandled.length} unhandled errors: ${unhandled[0]}`);
  if (shutdownExit && shutdownExit.code !== 0) failures.push(`the server's graceful stop ended with code ${shutdownExit.code}, signal ${shutdownExit.signal}`);

  const files: FuzzResult['files'] = {
    result: join(outDir, 'fuzz-result.json'),
    summary: join(outDir, 'fuzz-summary.md'),
    ...(loadResult ? { lastRequests: loadResult.lastRequestsFile, failures: loadResult.failuresFile } : {}),
  };
  const { log: _log, ...options } = o;
  const result: FuzzResult = {
    options,
    startedAt,
    elapsedMs: Date.now() - t0,
    passed: failures.length === 0,
    failures,
    server: { died, stderrTail: died || failures.length ? stderrTail.slice(-6000) : stderrTail.slice(-1000), unhandledErrorLines: unhandled, shutdownExit },
    rss,
    readyz,
    load: loadResult,
    loadError,
    files,
  };
  writeFileSync(files.result, JSON.stringify(result, null, 1));
  writeFileSync(files.summary, summaryMarkdown(result, 3));
  log(`${result.passed ? 'PASSED' : 'FAILED'} in ${(result.elapsedMs / 1000).toFixed(0)} s; ${files.summary}`);
  return result;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function getOnce(port: number, agent: https.Agent, path: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'GET', agent, timeout: timeoutMs }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => res({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      r.on('error', rej);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', rej);
    req.end();
  });
}

const n = (x: number) => x.toLocaleString('en-US');
const pct = (x: number, of: number) => (of ? `${((100 * x) / of).toFixed(1)} %` : '–');

/** The run as markdown; `level` is the heading level of its title. */
export function summaryMarkdown(r: FuzzResult, level: number): string {
  const h = '#'.repeat(level);
  const L = r.load;
  const out: string[] = [];
  const o = r.options;
  out.push(`${h} Fuzz run: ${r.passed ? 'passed' : '**failed**'}`, '');
  out.push(
    `\`npm run fuzz -- --requests=${o.requests} --seed=${o.seed} --concurrency=${o.concurrency}${o.deepYaml ? '' : ' --no-deep-yaml'}${o.issue8 ? '' : ' --no-issue8'}${o.replay ? ` --replay=${o.replay}` : ''}\` on ${r.startedAt}, ${(r.elapsedMs / 1000).toFixed(0)} s. ` +
      `Server started as a user starts it (\`node --import tsx src/cmd/core-apiserver.ts\`, fresh data dir, admin client certificate); load from a separate process: ${o.concurrency} requests in flight over HTTP/1.1 (keep-alive) and HTTP/2 (${o.h2Sessions} shared sessions, re-opened when the server closes one), ${o.watches} watches with hostile selectors kept open meanwhile${o.issue8 ? ", issue 8's deep flow-YAML burst on one HTTP/2 connection" : ''}.`,
    '',
  );
  if (r.failures.length) out.push(...r.failures.map((f) => `- **${f}**`), '');
  const rows: string[][] = [];
  if (L) {
    rows.push(['Requests sent', n(L.sent)]);
    for (const k of Object.keys(L.byClass).sort()) rows.push([`Answers ${k}`, `${n(L.byClass[k]!)} (${pct(L.byClass[k]!, L.answered)})`]);
    rows.push(['5xx: documented 504 (resourceVersion not reached yet; the client\'s own `?timeout=`)', n(L.documented5xx)]);
    rows.push(['5xx: undocumented', n(L.undocumented5xx)]);
    rows.push(['Bad answers (fuzz judge: not a Status, hang, broken stream, …)', n(L.problems)]);
    rows.push(['Transport errors', `${n(L.transportErrors)} ${Object.keys(L.transportErrorKinds).length ? JSON.stringify(L.transportErrorKinds) : ''}`]);
    if (L.afterDeath) rows.push(['Answers and errors after the server died (not judged)', n(L.afterDeath)]);
    rows.push(['Refused before reaching a handler (Node client; server HTTP/1.1 parser)', Object.keys(L.clientRefused).length ? JSON.stringify(L.clientRefused) : '0']);
    rows.push(['Stalls of the load process over 1 s: count / longest / total (its timeouts then are not judged)', `${L.clientStalls.count} / ${L.clientStalls.longestMs} ms / ${L.clientStalls.totalMs} ms`]);
    rows.push(['HTTP/2 sessions opened / retired by the client after 500 cancelled streams / lost to the server', `${L.h2SessionsOpened} / ${L.h2SessionsRetired} / ${L.h2SessionsLost}`]);
    rows.push(['Reseeds (every 1,000 requests: every stored event deleted, the named ones created again) / events deleted', `${n(L.reseeds)} / ${n(L.cleanedUp)}`]);
    const w = L.watchStats;
    rows.push(['Watches opened / clean streams / 4xx Status / failed / outlived their timeout during a load-process stall', `${n(w.opened)} / ${n(w.cleanStreams)} / ${n(w.refused4xx)} / ${n(w.failed)} / ${n(w.clientStalled)} (${n(w.framesSeen)} frames, ${w.errorFrames4xx} 4xx ERROR frames)`]);
    if (L.issue8) rows.push(['Issue 8 burst (YAML `[`×n + `"x\\ny"`, n = 200…3000, one HTTP/2 connection)', JSON.stringify(L.issue8.answers)]);
  }
  rows.push(['Server', r.server.died ? `**died**: code ${r.server.died.code}, signal ${r.server.died.signal}, after ${n(r.server.died.sentBefore)} requests` : `up throughout; graceful stop exit ${r.server.shutdownExit?.code}`]);
  rows.push(['/readyz polls (1 s) ok / non-200 / errors', `${r.readyz.ok} / ${r.readyz.non200} / ${r.readyz.errors} (max latency ${r.readyz.maxLatencyMs} ms)`]);
  const R = r.rss;
  rows.push(['Server RSS first / min / max', `${R.firstMiB.toFixed(0)} / ${R.minMiB.toFixed(0)} / ${R.maxMiB.toFixed(0)} MiB (${R.samples} samples, one a second)`]);
  rows.push([`RSS median at the end of warm-up (${(o.warmupFraction * 100).toFixed(0)} ± 5 % of the requests) → over the last tenth`, `${R.afterWarmupMiB.toFixed(0)} → ${R.lastMiB.toFixed(0)} MiB: ${R.growthAfterWarmupMiB >= 0 ? '+' : ''}${R.growthAfterWarmupMiB.toFixed(1)} MiB (bound ${R.boundMiB} MiB)`]);
  out.push('| | |', '|---|---|', ...rows.map((x) => `| ${x[0]} | ${x[1]!.replace(/\|/g, '\\|')} |`), '');
  if (L) {
    const statuses = [...new Set(Object.values(L.byOp).flatMap((m) => Object.keys(m)))].sort();
    out.push(`Answers by endpoint and status:`, '');
    out.push(`| op | ${statuses.join(' | ')} |`, `|---|${statuses.map(() => '---:').join('|')}|`);
    for (const op of Object.keys(L.byOp).sort()) out.push(`| ${op} | ${statuses.map((s) => (L.byOp[op]![s] ? n(L.byOp[op]![s]!) : '')).join(' | ')} |`);
    out.push('');
    if (L.problemKinds.length) {
      out.push('Bad answers, by kind (shortest example):', '');
      for (const p of L.problemKinds.slice(0, 30)) out.push(`- ${p.count}× ${p.example.replace(/\n/g, ' ')}`.slice(0, 1500));
      out.push('');
    }
    const bad5 = L.fiveXX.filter((f) => !f.documented);
    if (bad5.length) {
      out.push(`Undocumented 5xx (${bad5.length} kept, all in fuzz-result.json):`, '');
      for (const f of bad5.slice(0, 10)) out.push(`- ${f.status} ${f.request.method} ${f.request.path.slice(0, 200)} (${f.request.bodyLength} B body): ${f.answerBody.slice(0, 300).replace(/\n/g, ' ')}`);
      out.push('');
    }
    if (L.watchStats.failures.length) out.push('Watch failures:', '', ...L.watchStats.failures.slice(0, 10).map((f) => `- ${f}`), '');
  }
  if (r.server.died) out.push('Server stderr tail:', '', '```', r.server.stderrTail.slice(-3000), '```', '');
  out.push(`Files: ${Object.values(r.files).map((f) => `\`${f}\``).join(', ')}.`, '');
  return out.join('\n');
}
