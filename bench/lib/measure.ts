/**
 * One measured load run against a server process, with the server's own CPU time per answered request taken from
 * /proc around the run. CPU per request does not depend on how fast the load client is, which matters on a
 * 2-core machine where the client competes with the server.
 */
import type { LoadArgs, LoadResult } from '../load/http-load.ts';
import { cpuMsOf, runChild } from './proc.ts';

export interface Measured extends LoadResult {
  /** Server CPU (user + system) per answered request, µs. */
  serverCpuUs: number;
  /** Server CPU busy fraction over the run (1 = one core). */
  serverCpu: number;
}

/** Runs `load/http-load.ts` (or `load/autocannon.ts` with `tool: 'autocannon'`) and adds server CPU figures. */
export async function measure(serverPid: number, args: LoadArgs, tool: 'node' | 'autocannon' = 'node'): Promise<Measured> {
  const budget = (args.durationMs ?? 60_000) + (args.warmupMs ?? 0) + 60_000;
  const script = tool === 'node' ? 'load/http-load.ts' : 'load/autocannon.ts';
  const childArgs = tool === 'node' ? args : { origin: args.origin, creds: args.creds, connections: args.concurrency, durationMs: args.durationMs, warmupMs: args.warmupMs, method: args.method, path: args.path, headers: args.headers, event: args.event };
  // The warm-up is part of the child's run, so CPU is sampled from the child's own measured window instead:
  // the child reports durations, and the server's CPU is read before and after; warm-up CPU is subtracted pro rata.
  const c0 = cpuMsOf(serverPid);
  const t0 = performance.now();
  const r = await runChild<LoadResult>(script, childArgs, budget);
  const wallMs = performance.now() - t0;
  const cpuMs = cpuMsOf(serverPid) - c0;
  const loadedMs = r.durationS * 1000 + (args.warmupMs ?? 0);
  const share = loadedMs > 0 ? Math.min(1, (r.durationS * 1000) / loadedMs) : 1;
  const measuredCpuMs = cpuMs * share;
  return {
    ...r,
    serverCpuUs: r.completed ? (measuredCpuMs * 1000) / r.completed : NaN,
    serverCpu: measuredCpuMs / Math.max(1, Math.min(wallMs, r.durationS * 1000)),
  };
}

/** Runs A then B, `pairs` times (A/B/A/B…), so slow drifts of the machine hit both alike. */
export async function alternate<T>(pairs: number, a: (i: number) => Promise<T>, b: (i: number) => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  const ra: T[] = [];
  const rb: T[] = [];
  for (let i = 0; i < pairs; i++) {
    ra.push(await a(i));
    rb.push(await b(i));
  }
  return { a: ra, b: rb };
}

/**
 * As `alternate`, but every other pair runs b before a (ABBA), so whatever favours the first or the second run of a
 * pair (a checkpoint the previous run left, the other process's garbage collection) falls on both sides alike. For
 * ratios near 1 where a few percent decide.
 */
export async function alternateBalanced<T>(pairs: number, a: (i: number) => Promise<T>, b: (i: number) => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  const ra: T[] = [];
  const rb: T[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      ra.push(await a(i));
      rb.push(await b(i));
    } else {
      rb.push(await b(i));
      ra.push(await a(i));
    }
  }
  return { a: ra, b: rb };
}
