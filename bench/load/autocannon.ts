/**
 * Load process (child): autocannon (HTTP/1.1 keep-alive, one connection per concurrent client) with the admin
 * client certificate passed through its `tlsOptions`. autocannon's own histogram keeps whole milliseconds, too
 * coarse for sub-millisecond p50s, so latencies are taken from its per-response event instead.
 */
import { createRequire } from 'node:module';
import { childArgs, runMain } from '../lib/child.ts';
import type { ClientCreds } from '../lib/certs.ts';
import { createPath, eventBody, type EventSpec } from '../lib/event.ts';
import { Samples } from '../lib/stats.ts';
import type { LoadResult } from './http-load.ts';

interface Args {
  origin: string;
  creds: ClientCreds;
  connections: number;
  durationMs: number;
  warmupMs?: number;
  method: 'GET' | 'POST';
  path?: string;
  headers?: Record<string, string>;
  event?: EventSpec & { start: number };
}

interface ACRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?(r: ACRequest): ACRequest;
}
interface ACInstance {
  on(ev: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  on(ev: 'done', fn: (r: { errors: number; timeouts: number; non2xx: number }) => void): void;
}
type Autocannon = ((opts: Record<string, unknown>) => ACInstance) & { track?: unknown };

// autocannon ships CommonJS without type declarations.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function runOnce(a: Args, durationMs: number, firstIndex: number, record: boolean, lat: Samples, status: Record<string, number>): Promise<{ answers: number; errors: number; next: number }> {
  let i = firstIndex;
  const request: ACRequest = { method: a.method, path: a.path ?? '/', headers: { 'content-type': 'application/json', ...a.headers } };
  if (a.event) {
    const ev = a.event;
    request.setupRequest = (r) => {
      const n = ev.start + i++;
      return { ...r, path: a.path ?? createPath(ev, n), body: eventBody(ev, n) };
    };
  }
  return new Promise((resolve) => {
    let answers = 0;
    const inst = autocannon({
      url: a.origin,
      connections: a.connections,
      pipelining: 1,
      duration: durationMs / 1000,
      tlsOptions: { ca: a.creds.ca, cert: a.creds.cert, key: a.creds.key },
      requests: [request],
    });
    inst.on('response', (_c, st, _b, ms) => {
      answers++;
      if (!record) return;
      status[st] = (status[st] ?? 0) + 1;
      if (st >= 200 && st < 300) lat.push(ms);
    });
    inst.on('done', (r) => resolve({ answers, errors: r.errors + r.timeouts, next: i }));
  });
}

async function main(): Promise<LoadResult> {
  const a = childArgs<Args>();
  const lat = new Samples();
  const status: Record<string, number> = {};
  let next = 0;
  if (a.warmupMs) next = (await runOnce(a, a.warmupMs, next, false, lat, status)).next;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const r = await runOnce(a, a.durationMs, next, true, lat, status);
  const durationS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    sent: r.answers,
    completed: r.answers,
    errors: r.errors,
    durationS,
    okPerS: lat.length / durationS,
    answersPerS: r.answers / durationS,
    notSent: 0,
    status,
    retryAfter429: 0,
    lat2xx: lat.summary(),
    lat429: new Samples(1).summary(),
    clientCpuUs: r.answers ? (cpu.user + cpu.system) / r.answers : NaN,
  };
}

runMain(main);
