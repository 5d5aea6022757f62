/**
 * Load process (child): closed-loop (N workers, each one request at a time) or open-loop (a fixed request rate,
 * at most `concurrency` in flight) HTTPS load over HTTP/2 or HTTP/1.1 keep-alive with the admin client
 * certificate. Bodies are ~700 B Events (lib/event.ts) or none. Reports throughput, latency percentiles of 2xx
 * and of 429 answers, status counts, and how many 429s carried Retry-After.
 */
import { writeFileSync } from 'node:fs';
import { childArgs, nowMs, runMain } from '../lib/child.ts';
import type { ClientCreds } from '../lib/certs.ts';
import { createPath, eventBody, type EventSpec } from '../lib/event.ts';
import { Samples, type LatencySummary } from '../lib/stats.ts';
import { Client, type Transport } from '../lib/transport.ts';

export interface LoadArgs {
  origin: string;
  creds: ClientCreds;
  transport: Transport;
  /** HTTP/2 connections the streams are spread over (default 1). */
  sessions?: number;
  /** Closed loop: number of workers. Open loop: the cap on requests in flight. */
  concurrency: number;
  durationMs?: number;
  /** Stop after this many requests (whichever of count and duration comes first). */
  count?: number;
  /** Unrecorded load before the measured part (closed loop only). */
  warmupMs?: number;
  /** Open loop: requests per second. */
  rate?: number;
  method: 'GET' | 'POST';
  /** Fixed path; without it, event creates go to the event's namespace on the real server. */
  path?: string;
  headers?: Record<string, string>;
  /** Event bodies; request k (0-based) carries event `start + k`. */
  event?: EventSpec & { start: number };
  /** Writes `{ sent, resp }`: wall-clock times of each request's send and response (index k), for watch latency. */
  respTimesFile?: string;
}

export interface LoadResult {
  sent: number;
  completed: number;
  errors: number;
  firstError?: string;
  durationS: number;
  /** Completed 2xx per second over the measured time. */
  okPerS: number;
  /** All answers (any status) per second. */
  answersPerS: number;
  /** Open loop: requests the schedule wanted but the in-flight cap held back. */
  notSent: number;
  status: Record<string, number>;
  retryAfter429: number;
  lat2xx: LatencySummary;
  lat429: LatencySummary;
  /** This load process's own CPU (user + system) per answered request over the measured window, µs. */
  clientCpuUs: number;
}

async function main(): Promise<LoadResult> {
  const a = childArgs<LoadArgs>();
  const client = new Client(a.origin, a.creds, a.transport, { sessions: a.sessions ?? 1, maxSockets: a.concurrency });
  const ok = new Samples();
  const tooMany = new Samples();
  const status: Record<string, number> = {};
  const respTimes: number[] = [];
  const sendTimes: number[] = [];
  let sent = 0;
  let completed = 0;
  let errors = 0;
  let firstError: string | undefined;
  let retryAfter429 = 0;
  let recording = !(a.warmupMs && a.warmupMs > 0);
  let k = 0;

  const one = async (): Promise<void> => {
    const idx = k++;
    const path = a.path ?? (a.event ? createPath(a.event, a.event.start + idx) : '/');
    const body = a.method === 'POST' && a.event ? eventBody(a.event, a.event.start + idx) : undefined;
    const rec = recording;
    if (rec) sent++;
    if (a.respTimesFile) sendTimes[idx] = nowMs();
    const t0 = performance.now();
    try {
      const r = await client.request({ method: a.method, path, ...(a.headers ? { headers: a.headers } : {}), ...(body !== undefined ? { body } : {}) });
      if (!rec) return;
      const ms = performance.now() - t0;
      if (a.respTimesFile) respTimes[idx] = nowMs();
      completed++;
      status[r.status] = (status[r.status] ?? 0) + 1;
      if (r.status >= 200 && r.status < 300) ok.push(ms);
      else if (r.status === 429) {
        tooMany.push(ms);
        if (r.headers['retry-after'] !== undefined) retryAfter429++;
      }
    } catch (e) {
      if (!rec) return;
      errors++;
      firstError ??= e instanceof Error ? e.message : String(e);
    }
  };

  if (a.warmupMs && a.warmupMs > 0 && !a.rate) {
    const end = performance.now() + a.warmupMs;
    await Promise.all(Array.from({ length: a.concurrency }, async () => {
      while (performance.now() < end) await one();
    }));
    recording = true;
  }

  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const end = a.durationMs ? t0 + a.durationMs : Infinity;
  const limit = a.count ?? Infinity;
  let notSent = 0;
  const kStart = k;
  if (!a.rate) {
    await Promise.all(Array.from({ length: a.concurrency }, async () => {
      while (performance.now() < end && k - kStart < limit) await one();
    }));
  } else {
    // Open loop: every millisecond, issue what the schedule says is due, up to the in-flight cap.
    let inflight = 0;
    let scheduled = 0;
    const pending = new Set<Promise<void>>();
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const now = performance.now();
        const due = Math.min(limit, Math.floor(((now - t0) / 1000) * a.rate!)) - scheduled;
        for (let j = 0; j < due; j++) {
          scheduled++;
          if (inflight >= a.concurrency) {
            notSent++;
            continue;
          }
          inflight++;
          const p = one().finally(() => {
            inflight--;
            pending.delete(p);
          });
          pending.add(p);
        }
        if (now >= end || scheduled >= limit) {
          clearInterval(tick);
          resolve();
        }
      }, 1);
    });
    await Promise.all(pending);
  }
  const durationS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  client.close();
  if (a.respTimesFile) writeFileSync(a.respTimesFile, JSON.stringify({ sent: sendTimes.slice(kStart), resp: respTimes.slice(kStart) }));
  return {
    sent,
    completed,
    errors,
    ...(firstError ? { firstError } : {}),
    durationS,
    okPerS: ok.length / durationS,
    answersPerS: completed / durationS,
    notSent,
    status,
    retryAfter429,
    lat2xx: ok.summary(),
    lat429: tooMany.summary(),
    clientCpuUs: completed ? (cpu.user + cpu.system) / completed : NaN,
  };
}

runMain(main);
