/**
 * Where a create through the etcd backend spends its time (issue 14, G14a), in one run of a few seconds per arm:
 * what etcd is asked per operation (its own /metrics counters before and after: RPCs by method, watch messages each
 * way, Raft proposals, WAL fsyncs, bytes put) and the CPU per operation of etcd and of our server (from /proc), for
 * our creates (c=64, HTTP/2) against raw puts and raw create-if-absent transactions with a lease (the etcd3 npm
 * client, bench/load/etcd-put.ts), arms in alternation on the same etcd and server. With --memory-arm, the same
 * creates on a second server with the default backend: the server CPU a create costs without etcd.
 *
 *   node --import tsx bench/etcd-create-probe.ts [--run-ms=6000] [--pairs=2] [--memory-arm] [--arms=ours,put,txn]
 *     [--etcd-pprof=DIR] [--ab-root=DIR] [--ab-node-args="…"]
 *
 * --arms picks which arms run (all three by default): `--arms=ours` with BENCH_SERVER_NODE_ARGS=--cpu-prof profiles
 * the server under creates alone. --etcd-pprof=DIR keeps etcd's CPU profile of each arm.
 *
 * Raw operations write under /registry/events/ too, so our server's events watch follows them: its CPU in those arms
 * is what following someone else's writes costs it (and etcd's includes sending them to it), as in the bench.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEtcd } from './baselines/etcd.ts';
import { startApiServer, type RunningServer } from './lib/apiserver.ts';
import { measure } from './lib/measure.ts';
import { cpuMsOf, runChild, waitQuiet } from './lib/proc.ts';
import { ensureEtcd3 } from './lib/tools.ts';
import type { EtcdResult } from './load/etcd-put.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const RUN_MS = Number(arg('run-ms') ?? 6000);
const PAIRS = Number(arg('pairs') ?? 2);
const C = 64;
const ARMS = new Set((arg('arms') ?? 'ours,put,txn').split(','));
/** With --etcd-pprof=DIR, etcd's CPU profile of the middle of each arm is written there (read it with bench/lib/pprof.ts). */
const PPROF_DIR = arg('etcd-pprof');

/** The etcd counters that tell what a client asked of it. */
const WANTED = /^(grpc_server_handled_total|grpc_server_msg_received_total|grpc_server_msg_sent_total|etcd_server_proposals_committed_total|etcd_disk_wal_fsync_duration_seconds_(count|sum)|etcd_disk_backend_commit_duration_seconds_(count|sum)|etcd_debugging_mvcc_(put|range|txn|delete|slow_watcher|pending_events|events)_total|etcd_debugging_mvcc_watcher_total|etcd_debugging_mvcc_total_put_size_in_bytes|etcd_network_client_grpc_(sent|received)_bytes_total)/;

async function etcdMetrics(endpoint: string): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  for (const line of (await (await fetch(`${endpoint}/metrics`)).text()).split('\n')) {
    if (!WANTED.test(line)) continue;
    const i = line.lastIndexOf(' ');
    // grpc series: keep only the method and direction, the rest is the same for every line.
    const name = line.slice(0, i).replace(/\{.*grpc_method="(\w+)".*\}/, '{$1}').replace(/\{grpc_code="OK",(.*)\}/, '{$1}');
    m.set(name, (m.get(name) ?? 0) + Number(line.slice(i + 1)));
  }
  return m;
}

/** etcd's CPU profile from 1.5 s into an arm to 1 s before its end. */
async function etcdProfile(endpoint: string, label: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 1500));
  const secs = Math.max(1, Math.floor((RUN_MS - 2500) / 1000));
  const r = await fetch(`${endpoint}/debug/pprof/profile?seconds=${secs}`);
  mkdirSync(PPROF_DIR!, { recursive: true });
  writeFileSync(join(PPROF_DIR!, `${label.replace(/\W+/g, '-')}.pb.gz`), Buffer.from(await r.arrayBuffer()));
}

/** A process's read and write system calls so far (/proc/PID/io: syscr, syscw). */
function syscallsOf(pid: number): { r: number; w: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const n = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(io)?.[1] ?? NaN);
  return { r: n('syscr'), w: n('syscw') };
}

function perOp(before: Map<string, number>, after: Map<string, number>, n: number): string {
  const out: string[] = [];
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d / n >= 0.0005) out.push(`    ${(d / n).toFixed(3).padStart(9)}  ${k}`);
  }
  return out.sort((a, b) => a.slice(15).localeCompare(b.slice(15))).join('\n');
}

/** The machine's CPU time so far, busy and all, in ms (/proc/stat's first line; USER_HZ ticks of 10 ms). */
function machineCpuMs(): { busy: number; all: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f as [number, number, number, number, number, number, number, number];
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy * 10, all: (busy + idle + iowait) * 10 };
}

async function arm(label: string, etcd: { endpoint: string; pid: number }, server: RunningServer, op: () => Promise<{ n: number; perS: number }>): Promise<void> {
  await waitQuiet([etcd.pid, server.pid, ...(serverB ? [serverB.pid] : [])]);
  const m0 = await etcdMetrics(etcd.endpoint);
  const e0 = cpuMsOf(etcd.pid);
  const s0 = cpuMsOf(server.pid);
  const io0 = syscallsOf(server.pid);
  // Where the cores go while the load runs (its child's start-up and the end left out): the machine's busy share,
  // and per operation etcd, our server and everything else (the load process, mostly).
  let mid: { busy: number; all: number; e: number; s: number; secs: number } | undefined;
  let to: NodeJS.Timeout | undefined;
  const from = setTimeout(() => {
    const a = { m: machineCpuMs(), e: cpuMsOf(etcd.pid), s: cpuMsOf(server.pid), t: performance.now() };
    to = setTimeout(() => {
      const m = machineCpuMs();
      mid = { busy: m.busy - a.m.busy, all: m.all - a.m.all, e: cpuMsOf(etcd.pid) - a.e, s: cpuMsOf(server.pid) - a.s, secs: (performance.now() - a.t) / 1000 };
    }, RUN_MS - 2500);
  }, 2000);
  const profiled = PPROF_DIR ? etcdProfile(etcd.endpoint, label) : undefined;
  const { n, perS } = await op();
  await profiled;
  clearTimeout(from);
  clearTimeout(to);
  const us = (ms: number, ops = n) => ((ms * 1000) / ops).toFixed(0);
  let window = '';
  if (mid) {
    const ops = perS * mid.secs;
    window = `; mid-run ${mid.secs.toFixed(1)} s: machine ${((100 * mid.busy) / mid.all).toFixed(0)} % busy, CPU µs/op etcd ${us(mid.e, ops)}, our server ${us(mid.s, ops)}, the rest ${us(mid.busy - mid.e - mid.s, ops)}`;
  }
  const io = syscallsOf(server.pid);
  const sys = `; our server's system calls/op: ${((io.r - io0.r) / n).toFixed(2)} reads, ${((io.w - io0.w) / n).toFixed(2)} writes`;
  console.log(`${label}: ${perS.toFixed(0)}/s (n=${n}); CPU µs/op: etcd ${us(cpuMsOf(etcd.pid) - e0)}, our server ${us(cpuMsOf(server.pid) - s0)}${window}${sys}`);
  console.log(perOp(m0, await etcdMetrics(etcd.endpoint), n));
}

const etcd3 = ensureEtcd3();
if (!etcd3.dir) throw new Error(etcd3.note);
const etcd = await startEtcd(PPROF_DIR ? ['--enable-pprof'] : []);
const server = await startApiServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`], 'core-apiserver (etcd3)');
// --ab-root=DIR (another checkout, its node_modules in place) and/or --ab-node-args="…": a second etcd-backed server,
// whose creates run right after (even pairs) or before (odd pairs) the first's, on the same etcd: an A/B of two trees or
// two Node option sets under the same drift. Each server also follows the other's creates (same prefix).
const abRoot = arg('ab-root');
const abNodeArgs = process.argv.find((a) => a.startsWith('--ab-node-args='))?.slice('--ab-node-args='.length);
const serverB =
  abRoot || abNodeArgs !== undefined
    ? await startApiServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`], 'core-apiserver B (etcd3)', {
        ...(abRoot ? { BENCH_SERVER_ROOT: abRoot } : {}),
        ...(abNodeArgs !== undefined ? { BENCH_SERVER_NODE_ARGS: abNodeArgs } : {}),
      })
    : undefined;
const memory = process.argv.includes('--memory-arm') ? await startApiServer([], 'core-apiserver (default backend)') : undefined;
try {
  const creates = (s: RunningServer, prefix: string) => async () => {
    const m = await measure(s.pid, { origin: s.origin, creds: s.creds, transport: 'h2', concurrency: C, durationMs: RUN_MS, method: 'POST', event: { namespace: 'bench-etcd-create', namePrefix: prefix, start: 0 } });
    return { n: m.completed, perS: m.okPerS };
  };
  const raw = (run: string, txn: boolean) => async () => {
    const x = await runChild<EtcdResult>('load/etcd-put.ts', { endpoint: etcd.endpoint, etcd3Dir: etcd3.dir, concurrency: C, durationMs: RUN_MS, warmupMs: 200, run, ...(txn ? { txn: true, lease: true } : {}) }, RUN_MS + 60_000);
    return { n: x.puts, perS: x.putsPerS };
  };
  for (let i = 0; i < PAIRS; i++) {
    if (ARMS.has('ours') && serverB && i % 2 === 1) await arm(`B creates #${i}`, etcd, serverB, creates(serverB, `b${i}-`));
    if (ARMS.has('ours')) await arm(`our creates #${i}`, etcd, server, creates(server, `p${i}-`));
    if (ARMS.has('ours') && serverB && i % 2 === 0) await arm(`B creates #${i}`, etcd, serverB, creates(serverB, `b${i}-`));
    if (ARMS.has('put')) await arm(`raw puts #${i}`, etcd, server, raw(`pp${i}`, false));
    if (ARMS.has('txn')) await arm(`raw txns #${i}`, etcd, server, raw(`pt${i}`, true));
    if (memory) await arm(`creates on the default backend #${i}`, etcd, memory, creates(memory, `m${i}-`));
  }
} finally {
  await memory?.stop();
  await serverB?.stop();
  await server.stop();
  await etcd.stop();
}
