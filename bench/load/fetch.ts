/**
 * Read-side client process (child), one of three modes:
 *   get        sequential GETs of `paths` (cycled `repeat` times): latency, time to first body byte, bytes, items
 *   paginate   a limit=N walk following metadata.continue to the end: total time, pages, bytes
 *   watch      one watch read until `expect` events arrived (or an ERROR frame / timeout): time, events, 410s
 * Bodies are counted, not kept, so the client's memory does not depend on list size.
 */
import { childArgs, runMain } from '../lib/child.ts';
import type { ClientCreds } from '../lib/certs.ts';
import { Samples, type LatencySummary } from '../lib/stats.ts';
import { Client, type Transport } from '../lib/transport.ts';

interface Args {
  origin: string;
  creds: ClientCreds;
  transport: Transport;
  mode: 'get' | 'paginate' | 'watch';
  paths: string[];
  headers?: Record<string, string>;
  repeat?: number;
  /** get: several groups of queries, each reported on its own (in `groups`). */
  groups?: { paths: string[]; repeat: number; maxMs?: number }[];
  /** get: false = do not parse bodies for their item count (a bare walk's pages, timed against ours). */
  parse?: boolean;
  /** watch: events to wait for; timeoutMs bounds it. */
  expect?: number;
  timeoutMs?: number;
}

export interface FetchResult {
  requests: number;
  status: Record<string, number>;
  latency: LatencySummary;
  ttfb: LatencySummary;
  bytes: number;
  /** Largest item count seen in one answer (bodies under 4 MB are parsed for it). */
  maxItems: number;
  totalMs: number;
  pages?: number;
  events?: number;
  errorFrames?: number;
  firstErrorFrame?: string;
  /** watch: why the request failed, when it did. */
  requestError?: string;
  /** watch: what ended the read — enough events, an ERROR frame, the server closing the stream, a timeout. */
  groups?: FetchResult[];
  endedBy?: 'expected' | 'error-frame' | 'server' | 'timeout' | 'request-error';
}

const CONTINUE = Buffer.from('"continue":"');

async function main(): Promise<FetchResult> {
  const a = childArgs<Args>();
  const client = new Client(a.origin, a.creds, a.transport);
  let lat = new Samples();
  let ttfb = new Samples();
  let status: Record<string, number> = {};
  let bytes = 0;
  let maxItems = 0;
  let requests = 0;

  // A walk keeps each page's head (for metadata.continue) and does not parse the page: parsing ~600 KB of JSON
  // per page would put client work between pages that a single large list (never parsed) does not pay, and the
  // walk is compared with that list.
  const get = async (path: string, keepHead: boolean): Promise<{ head: Buffer | undefined; status: number }> => {
    const t0 = performance.now();
    let first = -1;
    let head: Buffer | undefined;
    const small: Buffer[] = [];
    let size = 0;
    const r = await client.request({
      method: 'GET',
      path,
      ...(a.headers ? { headers: a.headers } : {}),
      onData: (c) => {
        if (first < 0) first = performance.now() - t0;
        size += c.length;
        if (keepHead || a.parse === false) {
          if (keepHead) head ??= c.subarray(0, 2048);
          return;
        }
        if (size < 4 << 20) small.push(c);
        else small.length = 0;
      },
    });
    lat.push(performance.now() - t0);
    ttfb.push(first < 0 ? performance.now() - t0 : first);
    bytes += size;
    requests++;
    status[r.status] = (status[r.status] ?? 0) + 1;
    if (size < 4 << 20 && small.length) {
      try {
        const items = (JSON.parse(Buffer.concat(small).toString('utf8')) as { items?: unknown[]; rows?: unknown[] });
        maxItems = Math.max(maxItems, (items.items ?? items.rows ?? []).length);
      } catch {
        // not JSON (or a Table with another shape): no item count
      }
    }
    return { head, status: r.status };
  };

  if (a.mode === 'get' && a.groups) {
    // Several query kinds in one process: one result per group, each with fresh counters.
    const groups: FetchResult[] = [];
    for (const g of a.groups) {
      lat = new Samples();
      ttfb = new Samples();
      status = {};
      bytes = maxItems = requests = 0;
      const g0 = performance.now();
      // Bounded in time: a selector that scans a million events may take a second per query.
      const until = g0 + (g.maxMs ?? Infinity);
      let done = 0;
      outer: for (let r = 0; r < g.repeat; r++) {
        for (const p of g.paths) {
          if (done >= 3 && performance.now() > until) break outer;
          await get(p, false);
          done++;
        }
      }
      groups.push({ requests, status, latency: lat.summary(), ttfb: ttfb.summary(), bytes, maxItems, totalMs: performance.now() - g0 });
    }
    client.close();
    return { requests: groups.reduce((x, g) => x + g.requests, 0), status: {}, latency: lat.summary(), ttfb: ttfb.summary(), bytes: 0, maxItems: 0, totalMs: 0, groups };
  }
  const t0 = performance.now();
  if (a.mode === 'get') {
    for (let r = 0; r < (a.repeat ?? 1); r++) for (const p of a.paths) await get(p, false);
  } else if (a.mode === 'paginate') {
    let pages = 0;
    for (let cont: string | undefined = ''; cont !== undefined; ) {
      const sep = a.paths[0]!.includes('?') ? '&' : '?';
      const { head } = await get(cont ? `${a.paths[0]}${sep}continue=${encodeURIComponent(cont)}` : a.paths[0]!, true);
      pages++;
      const i = head ? head.indexOf(CONTINUE) : -1;
      cont = undefined;
      if (i >= 0) {
        const end = head!.indexOf(0x22, i + CONTINUE.length);
        const token = head!.subarray(i + CONTINUE.length, end).toString('utf8');
        if (token) cont = token;
      }
    }
    const totalMs = performance.now() - t0;
    client.close();
    return { requests, status, latency: lat.summary(), ttfb: ttfb.summary(), bytes, maxItems, totalMs, pages };
  } else {
    let events = 0;
    let errorFrames = 0;
    let firstErrorFrame: string | undefined;
    let tail = '';
    let st = 0;
    let first = -1;
    let requestError: string | undefined;
    let endedBy: FetchResult['endedBy'];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        endedBy ??= 'timeout';
        resolve();
      }, a.timeoutMs ?? 60_000);
      client
        .request({
          method: 'GET',
          path: a.paths[0]!,
          onResponse: (r) => (st = r.status),
          onData: (c) => {
            if (first < 0) first = performance.now() - t0;
            bytes += c.length;
            // Count newline-terminated frames; look only at frame starts for ERROR (cheap at 100k+ frames/s).
            const s = tail + c.toString('latin1');
            let pos = 0;
            let i;
            while ((i = s.indexOf('\n', pos)) >= 0) {
              if (s.startsWith('{"type":"ERROR"', pos)) {
                errorFrames++;
                firstErrorFrame ??= s.slice(pos, Math.min(i, pos + 300));
              } else events++;
              pos = i + 1;
            }
            tail = s.slice(pos);
            if (events >= (a.expect ?? Infinity) || errorFrames > 0) {
              endedBy ??= errorFrames > 0 ? 'error-frame' : 'expected';
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .then(
          () => {
            endedBy ??= 'server';
            resolve();
          },
          (e: unknown) => {
            requestError = e instanceof Error ? e.message : String(e);
            endedBy ??= 'request-error';
            resolve();
          },
        );
    });
    const totalMs = performance.now() - t0;
    status[st] = 1;
    ttfb.push(first);
    lat.push(totalMs);
    client.close();
    return { requests: 1, status, latency: lat.summary(), ttfb: ttfb.summary(), bytes, maxItems: 0, totalMs, events, errorFrames, ...(firstErrorFrame ? { firstErrorFrame } : {}), ...(requestError ? { requestError } : {}), ...(endedBy ? { endedBy } : {}) };
  }
  const totalMs = performance.now() - t0;
  client.close();
  return { requests, status, latency: lat.summary(), ttfb: ttfb.summary(), bytes, maxItems, totalMs };
}

runMain(main);
