/**
 * A closed-loop load from h2load (nghttp2's C client: one connection, `concurrency` streams in flight) against the
 * real server, authenticated by a bearer token from `--token-auth-file` (h2load cannot present a client
 * certificate). This is how the reference measured kube-apiserver (wrk, C, over HTTPS with a bearer token): on two
 * cores a load client's CPU is taken from the server under test, and h2load takes much less per request than the
 * bench's Node client (`load/http-load.ts`): the run reports both. Latencies come from h2load's per-request log (µs resolution).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Measured } from './measure.ts';
import { cpuMsOf } from './proc.ts';
import { Samples } from './stats.ts';

export interface H2loadArgs {
  origin: string;
  path: string;
  token: string;
  body: string;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
  /** Also receives each 2xx latency (ms), for a summary over several runs. */
  okSamples?: Samples;
}

/**
 * Runs h2load under a shell that then prints its own /proc stat: once h2load has been waited for, the shell's
 * cutime and cstime (fields 16 and 17) are h2load's CPU time, the load client's cost of the run.
 */
function runTool(args: string[], timeoutMs: number): Promise<{ out: string; clientCpuMs: number }> {
  return new Promise((resolve, reject) => {
    const script = 'h2load "$@" || exit $?; echo; echo "@@stat $(cat /proc/$$/stat)"';
    execFile('sh', ['-c', script, 'sh', ...args], { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`h2load ${args.join(' ')}: ${err.message}\n${stderr}`));
      const stat = /@@stat (.*)/.exec(stdout)?.[1] ?? '';
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      resolve({ out: stdout, clientCpuMs: (Number(f[13]) + Number(f[14])) * 10 });
    });
  });
}

/** One measured h2load run, with the server's CPU per answered request from /proc (warm-up removed pro rata). */
export async function measureH2load(serverPid: number, a: H2loadArgs): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-h2load-'));
  try {
    const bodyFile = join(dir, 'body.json');
    const logFile = join(dir, 'requests.tsv');
    writeFileSync(bodyFile, a.body);
    const c0 = cpuMsOf(serverPid);
    const t0 = performance.now();
    const { out, clientCpuMs } = await runTool(
      [
        '-c1',
        `-m${a.concurrency}`,
        `-D${a.durationMs}ms`,
        ...(a.warmupMs > 0 ? [`--warm-up-time=${a.warmupMs}ms`] : []),
        '-d',
        bodyFile,
        '-H',
        'content-type: application/json',
        '-H',
        'accept: application/json',
        '-H',
        `authorization: Bearer ${a.token}`,
        `--log-file=${logFile}`,
        `${a.origin}${a.path}`,
      ],
      a.durationMs + a.warmupMs + 60_000,
    );
    const wallMs = performance.now() - t0;
    const cpuMs = cpuMsOf(serverPid) - c0;
    // The log holds the measured window only (h2load starts it after the warm-up): start µs, status, duration µs. A
    // request in flight across the end of the warm-up is logged with status 0 (its headers came before the reset of
    // h2load's statistics); such rows are not answers of the window. Real failures are in h2load's own counters.
    const status: Record<string, number> = {};
    const ok = new Samples();
    let completed = 0;
    let spanning = 0;
    for (const line of readFileSync(logFile, 'utf8').split('\n')) {
      if (!line) continue;
      const [, code, us] = line.split('\t');
      if (code === '0') {
        spanning++;
        continue;
      }
      completed++;
      status[code!] = (status[code!] ?? 0) + 1;
      if (code!.startsWith('2')) {
        ok.push(Number(us) / 1000);
        a.okSamples?.push(Number(us) / 1000);
      }
    }
    const counts = /requests: \d+ total, \d+ started, \d+ done, \d+ succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(out);
    if (!counts) throw new Error(`h2load printed no request counts:\n${out}`);
    const errors = Number(counts[1]) + Number(counts[2]) + Number(counts[3]);
    if (spanning > a.concurrency) throw new Error(`h2load logged ${spanning} requests with status 0, more than were in flight (${a.concurrency})`);
    const durationS = a.durationMs / 1000;
    const share = durationS * 1000 / (durationS * 1000 + a.warmupMs);
    return {
      sent: completed + errors,
      completed,
      errors,
      ...(errors ? { firstError: out.split('\n').find((l) => /error|fail/i.test(l)) ?? 'h2load reported errors' } : {}),
      durationS,
      okPerS: ok.length / durationS,
      answersPerS: completed / durationS,
      notSent: 0,
      status,
      retryAfter429: 0,
      lat2xx: ok.summary(),
      lat429: new Samples(1).summary(),
      serverCpuUs: completed ? (cpuMs * share * 1000) / completed : NaN,
      serverCpu: (cpuMs * share) / Math.max(1, Math.min(wallMs, durationS * 1000)),
      clientCpuUs: completed ? (clientCpuMs * share * 1000) / completed : NaN,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
