/**
 * A/B of the paged walk (issue 9, I9) between source trees in one session, for a diagnosis (not part of `npm run
 * bench`): `node --import tsx bench/walk-ab.ts N ROUNDS TREE...`, a TREE being a checkout's directory, optionally
 * `DIR@K=V,...` for environment given to that server only. N events are loaded once through the first tree's
 * server into one namespace; each tree's server then starts on its own copy of that data directory, and every round
 * times, tree after tree (the order reversed every other round), one full list and one limit=500 walk with the
 * server's CPU from /proc. Prints each round and the medians per tree.
 *   WALK_NODE_ARGS  node options for the measured servers (`--cpu-prof --cpu-prof-dir=DIR`, `--perf-basic-prof`)
 *   WALK_ONLY       `walk` or `full`: only that kind, for a profile of it
 *   WALK_PERF       FILE: `perf record -g` of the first tree's server across the rounds
 *   WALK_STDOUT     FILE: the measured servers' stdout (e.g. `--trace-deopt`)
 *   WALK_THREADS    1: CPU per thread and the pages' latency and first-byte time per fetch
 */
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, h2Get } from './lib/apiserver.ts';
import { kubeconfigCreds } from './lib/certs.ts';
import { API_PREFIX } from './lib/event.ts';
import { Child, cpuMsOf, runChild, sleep } from './lib/proc.ts';
import type { FetchResult } from './load/fetch.ts';
import type { LoadResult } from './load/http-load.ts';

const [nArg, roundsArg, ...trees] = process.argv.slice(2);
const N = Number(nArg);
const ROUNDS = Number(roundsArg);
const nodeArgs = (process.env.WALK_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** A tree argument `DIR` or `DIR@K=V,K=V` (environment for that server only, e.g. a tuning knob under test). */
function treeEnv(tree: string): { root: string; env: NodeJS.ProcessEnv } {
  const [root, kv] = tree.split('@') as [string, string | undefined];
  const env = { ...process.env };
  for (const p of kv ? kv.split(',') : []) env[p.slice(0, p.indexOf('='))] = p.slice(p.indexOf('=') + 1);
  return { root, env };
}

async function start(tree: string, dataDir = mkdtempSync(join(tmpdir(), 'walk-ab-')), extra: string[] = []) {
  const { root, env } = treeEnv(tree);
  const port = await freePort();
  const proc = spawn(process.execPath, [...extra, '--import', 'tsx', join(root, 'src/cmd/core-apiserver.ts'), `--data-dir=${dataDir}`, `--secure-port=${port}`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const child = new Child(proc, root);
  // WALK_STDOUT=FILE: the restarted servers' stdout (e.g. --trace-deopt) appended to FILE.
  if (process.env.WALK_STDOUT && extra.length) proc.stdout!.on('data', (d: string) => appendFileSync(process.env.WALK_STDOUT!, d));
  const origin = `https://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${root} exited: ${child.stderr}`);
    try {
      if ((await h2Get(origin, '/readyz', undefined, 2000)).status === 200) break;
    } catch {}
    await sleep(200);
  }
  const creds = kubeconfigCreds(join(dataDir, 'admin.kubeconfig'));
  return { root: tree, dataDir, pid: proc.pid!, origin, creds, halt: () => child.stop('SIGINT', 60_000), stop: async () => { await child.stop('SIGINT', 60_000); rmSync(dataDir, { recursive: true, force: true }); } };
}

// Loaded once through the first tree's server, stopped, and its data directory copied for every tree (the same
// stored bytes for each), so a profile holds the lists and walks only.
const servers: Awaited<ReturnType<typeof start>>[] = [];
{
  const s = await start(trees[0]!);
  const r = await runChild<LoadResult>('load/http-load.ts', { origin: s.origin, creds: s.creds, transport: 'h2', sessions: 2, concurrency: 64, count: N, durationMs: 15 * 60_000, method: 'POST', event: { namespace: 'walk', namePrefix: 'e-', start: 0 } }, 16 * 60_000, 'loader');
  process.stderr.write(`loaded ${r.completed} (${Math.round(r.okPerS)}/s)\n`);
  await s.halt();
  for (const t of trees) {
    const dir = mkdtempSync(join(tmpdir(), 'walk-ab-'));
    cpSync(s.dataDir, dir, { recursive: true });
    servers.push(await start(t, dir, nodeArgs));
  }
  rmSync(s.dataDir, { recursive: true, force: true });
}
const path = `${API_PREFIX}/namespaces/walk/events`;
/** CPU ms per thread name (WALK_THREADS=1): where a walk's CPU goes besides the main thread. */
const threads = (pid: number): Map<string, number> => {
  const m = new Map<string, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      m.set(name, (m.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
    } catch {}
  }
  return m;
};
const fetch = async (s: (typeof servers)[number], walk: boolean) => {
  const t0 = process.env.WALK_THREADS ? threads(s.pid) : undefined;
  const c0 = cpuMsOf(s.pid);
  const r = await runChild<FetchResult>('load/fetch.ts', walk ? { origin: s.origin, creds: s.creds, transport: 'h2', mode: 'paginate', paths: [`${path}?limit=500`] } : { origin: s.origin, creds: s.creds, transport: 'h2', mode: 'get', paths: [path], parse: false }, 600_000);
  if (t0) {
    const t1 = threads(s.pid);
    process.stderr.write(`  ${walk ? 'walk' : 'full'} threads: ${[...t1].map(([k, v]) => `${k}=${v - (t0.get(k) ?? 0)}`).filter((x) => !x.endsWith('=0')).join(' ')}\n`);
  }
  if (walk && process.env.WALK_THREADS) process.stderr.write(`  page latency mean ${r.latency.mean.toFixed(2)} p50 ${r.latency.p50.toFixed(2)}; first byte mean ${r.ttfb.mean.toFixed(2)} p50 ${r.ttfb.p50.toFixed(2)} ms\n`);
  return { ms: r.totalMs, cpu: cpuMsOf(s.pid) - c0, pages: r.pages ?? 1, status: r.status };
};
if (!process.env.WALK_ONLY) for (const s of servers) await fetch(s, true);
// WALK_PERF=FILE: perf record of the (first) server across the rounds (start it with WALK_NODE_ARGS=--perf-basic-prof).
const perf = process.env.WALK_PERF ? spawn('perf', ['record', '-F', '1999', '-g', '-p', String(servers[0]!.pid), '-o', process.env.WALK_PERF], { stdio: 'inherit' }) : undefined;
if (perf) await sleep(1000);
const rows: Record<string, { ratio: number; full: number; walk: number; cpuFull: number; cpuWalk: number }[]> = {};
for (let i = 0; i < ROUNDS; i++) {
  for (const s of i % 2 ? [...servers].reverse() : servers) {
    // WALK_ONLY=walk|full: only one kind, for a profile of it (the other's figures are then a copy).
    const f = process.env.WALK_ONLY === 'walk' ? await fetch(s, true) : await fetch(s, false);
    const w = process.env.WALK_ONLY === 'full' ? f : await fetch(s, true);
    (rows[s.root] ??= []).push({ ratio: w.ms / f.ms, full: f.ms, walk: w.ms, cpuFull: f.cpu, cpuWalk: w.cpu });
    process.stderr.write(`${s.root} round ${i}: full ${f.ms.toFixed(0)} ms (cpu ${f.cpu}) walk ${w.ms.toFixed(0)} ms (cpu ${w.cpu}, ${w.pages} pages) ratio ${(w.ms / f.ms).toFixed(2)} ${JSON.stringify(w.status)}\n`);
  }
}
if (perf) {
  perf.kill('SIGINT');
  await new Promise((r) => perf.once('exit', r));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [root, rs] of Object.entries(rows)) {
  console.log(`${root}: ratio median ${med(rs.map((r) => r.ratio)).toFixed(2)} [${rs.map((r) => r.ratio.toFixed(2)).join(' ')}]; cpu full ${med(rs.map((r) => r.cpuFull))} ms, walk ${med(rs.map((r) => r.cpuWalk))} ms; walk ms ${med(rs.map((r) => r.walk)).toFixed(0)}, full ms ${med(rs.map((r) => r.full)).toFixed(0)}`);
}
for (const s of servers) await s.stop();
