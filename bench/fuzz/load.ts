/**
 * The fuzz runner's load process (started by bench/fuzz/runner.ts, never by hand): sends the hostile requests of
 * bench/fuzz/hostile.ts to the server, `concurrency` at a time, over HTTP/1.1 (a keep-alive agent) and HTTP/2 (a few
 * sessions, re-opened when the server closes one; concurrent requests share them), keeps `watches` watches with
 * hostile selectors open meanwhile (re-opened as they end), and sends issue 8's deep-YAML burst on one HTTP/2
 * connection a quarter of the way in. It runs in its own process so that a server crash leaves it, and the
 * recorder above it, standing: it reports `@@progress` every second and `@@result` at the end, and writes the last
 * requests it sent (`last-requests.json`) and every failed exchange (`failures.json`) in the format `--replay` reads.
 *
 * The parent stops it early with a `stop` line on stdin (the server died, or the time limit).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { join } from 'node:path';
import fc from 'fast-check';
import { childArgs, emit, onStdinCommand } from '../lib/child.ts';
import type { FuzzOptions } from './runner.ts';
import { clientTls, connectH2, h2Request, rawRequest, type ClientTls, type RawResult } from '../../test/helpers/client.ts';
import {
  FUZZ_NAMES,
  FUZZ_NS,
  BASE,
  KNOWN_H1_METHODS,
  REQUEST_TIMEOUT_MS,
  fillIn,
  fuzzRequests,
  isUpstream5xx,
  issue8Requests,
  problemWith,
  validEventObject,
  watchPath,
  type FuzzRequest,
} from './hostile.ts';

export interface LoadArgs extends Pick<FuzzOptions, 'outDir' | 'requests' | 'seed' | 'concurrency' | 'h2Sessions' | 'watches' | 'deepYaml' | 'issue8' | 'replay'> {
  port: number;
  kubeconfig: string;
  /** How many of the last requests sent to keep for last-requests.json. */
  ring: number;
}

/** A request as the replay files hold it. */
export interface RecordedRequest extends Omit<FuzzRequest, 'body'> {
  seq: number;
  sentAtMs: number;
  bodyLength: number;
  bodyBase64?: string;
  /** How the exchange ended: `200`, `transport: ECONNRESET`, `pending` (no answer when the file was written). */
  outcome?: string;
  /** Date.now() when it was sent. */
  sentAtWallMs: number;
}

export interface FiveXX {
  documented: boolean;
  request: { h2: boolean; anon?: boolean; method: string; path: string; headers: Record<string, string>; bodyLength: number; bodyPrefix: string };
  status: number;
  answerHeaders: Record<string, unknown>;
  answerBody: string;
}

export interface WatchStats {
  opened: number;
  /** Streams that outlived their timeout while this load process itself stalled (not judged). */
  clientStalled: number;
  /** 2xx streams that ended as a watch should (the server's timeout, or ours at the end of the run). */
  cleanStreams: number;
  /** Refused with a 4xx Status (hostile selectors). */
  refused4xx: number;
  framesSeen: number;
  /** ERROR frames with a 4xx Status inside a stream (410 Gone for an old resourceVersion). */
  errorFrames4xx: number;
  failed: number;
  failures: string[];
  byStatus: Record<string, number>;
}

export interface LoadProgress {
  elapsedMs: number;
  sent: number;
  answered: number;
  inflight: number;
  byClass: Record<string, number>;
  problems: number;
  undocumented5xx: number;
  transportErrors: number;
  watches: { open: number; opened: number; failed: number };
}

export interface LoadResult extends LoadProgress {
  stoppedEarly: string | undefined;
  byStatus: Record<string, number>;
  /** op → status (or `transport`) → count: what each endpoint answered. */
  byOp: Record<string, Record<string, number>>;
  /** Requests Node's client itself refused to send (e.g. a path with a character HTTP/1.1 forbids): never reached the server. */
  clientRefused: Record<string, number>;
  problemKinds: { kind: string; count: number; example: string }[];
  fiveXX: FiveXX[];
  documented5xx: number;
  transportErrorKinds: Record<string, number>;
  h2SessionsOpened: number;
  h2SessionsLost: number;
  /** Anonymous HTTP/2 requests sent again on a new connection after the server refused their stream unprocessed. */
  retriedRefusedStreams: number;
  /** Sessions the client closed itself after CANCELS_PER_SESSION cancelled streams. */
  h2SessionsRetired: number;
  /** Stalls of the load process's own event loop over a second: how many, the longest, all together (ms). */
  clientStalls: { count: number; longestMs: number; totalMs: number };
  issue8: { sent: number; answers: Record<string, number> } | undefined;
  watchStats: WatchStats;
  reseeds: number;
  /** Events the reseeds deleted (the run's live data stays bounded). */
  cleanedUp: number;
  /** Answers (or errors) that arrived after the server died: not judged. */
  afterDeath: number;
  diedAt: number | undefined;
  /** The number of requests sent before the death. */
  sentBeforeDeath: number | undefined;
  lastRequestsFile: string;
  failuresFile: string;
}

const args = childArgs<LoadArgs>();
const CHUNK = 250;
const RESEED_EVERY = 1000;
const MAX_5XX_KEPT = 2000;
const MAX_FAILURES_KEPT = 2000;

const t0 = Date.now();
const tls = clientTls(args.kubeconfig);
const agent = new https.Agent({ keepAlive: true, maxSockets: args.concurrency, ...tls });
const anonAgent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: tls.ca });
const watchAgent = new https.Agent({ keepAlive: false, ...tls });

let stopping: string | undefined;
/**
 * Wall-clock time the server died (from the runner's `stop died=<ms>`, or the first ECONNREFUSED): what is answered
 * after it is a consequence, not a finding, and the requests sent after it are not among the last ones it got.
 */
let diedAt: number | undefined;
void onStdinCommand('stop').then((why) => {
  const m = /died=(\d+)/.exec(why);
  if (m) diedAt ??= Number(m[1]);
  stopping ??= why || 'stopped by the runner';
});

// ---------------------------------------------------------------------------------------------------------------
// HTTP/2 sessions

let h2SessionsOpened = 0;
let h2SessionsLost = 0;
/** Anonymous HTTP/2 requests sent again after the server refused their stream unprocessed (see anonymousH2Request). */
let retriedRefusedStreams = 0;
let sessionsRetired = 0;

async function connect(withCert: boolean, t: ClientTls): Promise<http2.ClientHttp2Session> {
  const session = await connectH2(args.port, withCert ? t : { ca: t.ca });
  h2SessionsOpened++;
  return session;
}

/**
 * Streams the client may cancel on one session before it takes a new one: nghttp2 (in Node) ends a connection whose
 * client resets more than 1,000 streams in a burst, then more than 33 a second, with ENHANCE_YOUR_CALM (its Rapid
 * Reset protection, CVE-2023-44487). Cutting watches short is this client's doing, not input the server mishandles.
 */
const CANCELS_PER_SESSION = 500;

/** A slot holding one session, re-opened on the next use once the server closed or reset it, or it used its cancels. */
class SessionSlot {
  #p: Promise<http2.ClientHttp2Session> | undefined;
  #cancels = 0;
  constructor(readonly withCert: boolean) {}
  /** Counts a stream the client cut or timed out; past the budget the session finishes what it has and is replaced. */
  noteCancel(): void {
    if (++this.#cancels < CANCELS_PER_SESSION) return;
    this.#cancels = 0;
    const p = this.#p;
    this.#p = undefined;
    // Closed a second later: close() makes nghttp2 refuse (REFUSED_STREAM) the streams this client created on the
    // session but has not flushed yet, and a request that already awaited this session still opens its stream on it.
    void p?.then((s) => setTimeout(() => s.close(), 1000).unref(), () => {});
    sessionsRetired++;
  }
  get(): Promise<http2.ClientHttp2Session> {
    if (!this.#p) {
      const p = connect(this.withCert, tls);
      this.#p = p;
      p.then(
        (s) => {
          const drop = () => {
            if (this.#p === p) {
              this.#p = undefined;
              if (!stopping) h2SessionsLost++;
            }
          };
          s.once('close', drop);
          s.once('goaway', drop);
        },
        () => {
          if (this.#p === p) this.#p = undefined;
        },
      );
    }
    return this.#p;
  }
  destroy(): void {
    void this.#p?.then((s) => s.destroy(), () => {});
    this.#p = undefined;
  }
}

/**
 * An anonymous HTTP/2 request as Go's transport (client-go, kubectl) sends it. The server closes an anonymous
 * connection after its first answer (UnauthenticatedHTTP2DOSMitigation: GOAWAY, then close), so the other requests
 * this client already put on that connection are refused unprocessed (REFUSED_STREAM, or GOAWAY before the stream
 * opened); RFC 9113 §8.7 makes those safe to send again, and Go's transport does, on a new connection.
 */
async function anonymousH2Request(opts: Parameters<typeof h2Request>[1]): Promise<RawResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await h2Request(await anonSlot.get(), opts);
      if (res.cut || res.timedOut) anonSlot.noteCancel();
      return res;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const refused = /rstCode 7\)/.test(err.message) || err.code === 'ERR_HTTP2_GOAWAY_SESSION' || err.code === 'ERR_HTTP2_INVALID_SESSION';
      if (!refused || attempt >= 10) throw e;
      retriedRefusedStreams++;
    }
  }
}

const slots = Array.from({ length: Math.max(1, args.h2Sessions) }, () => new SessionSlot(true));
const anonSlot = new SessionSlot(false);
const watchSlots = [new SessionSlot(true), new SessionSlot(true)];
let rr = 0;

// ---------------------------------------------------------------------------------------------------------------
// Recording

let seq = 0;
let answered = 0;
let inflight = 0;
const byClass: Record<string, number> = {};
const byStatus: Record<string, number> = {};
const byOp: Record<string, Record<string, number>> = {};
const clientRefused: Record<string, number> = {};
const problems = new Map<string, { count: number; example: string }>();
let problemCount = 0;
const fiveXX: FiveXX[] = [];
let documented5xx = 0;
let undocumented5xx = 0;
let transportErrors = 0;
const transportErrorKinds: Record<string, number> = {};
const ring: RecordedRequest[] = [];
const failures: RecordedRequest[] = [];
let reseeds = 0;
/** Judgements of broken connections and streams, made at the end (see DEATH_SLACK_MS). */
const deferred: { at: number; judge: () => void }[] = [];
/** A connection broken this long before the server's death counts as part of it. */
const DEATH_SLACK_MS = 3000;
function judgeDeferred(): void {
  for (const d of deferred) {
    if (diedAt !== undefined && d.at >= diedAt - DEATH_SLACK_MS) afterDeath++;
    else d.judge();
  }
  deferred.length = 0;
}
let afterDeath = 0;
let issue8: LoadResult['issue8'];

const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);

function recorded(r: FuzzRequest, id: number): RecordedRequest {
  const rec: RecordedRequest = {
    seq: id,
    sentAtMs: Date.now() - t0,
    sentAtWallMs: Date.now(),
    op: r.op,
    h2: r.h2,
    ...(r.anon ? { anon: true } : {}),
    method: r.method,
    path: r.path,
    headers: r.headers,
    bodyLength: r.body?.length ?? 0,
    outcome: 'pending',
  };
  // Encoded only when a record is written out: the ring holds hundreds of records, some with 3 MiB bodies.
  const body = r.body;
  if (body) Object.defineProperty(rec, 'bodyBase64', { enumerable: true, get: () => body.toString('base64') });
  return rec;
}

/**
 * Stalls of this process's own event loop (GC of a large heap, a big body being built) longer than a second: an
 * answer that did not come in time while this process was not running is not the server's lateness.
 */
const stalls: { from: number; to: number }[] = [];
let lastTick = Date.now();
const stallTicker = setInterval(() => {
  const now = Date.now();
  if (now - lastTick > 1000) stalls.push({ from: lastTick, to: now });
  lastTick = now;
}, 100);
stallTicker.unref();

function stalledSince(from: number): number {
  return stalls.reduce((ms, s) => (s.to > from ? ms + (s.to - Math.max(s.from, from)) : ms), 0);
}

function addProblem(problem: string, r: FuzzRequest, rec: RecordedRequest): void {
  problemCount++;
  const key = problem.replace(/\d+/g, 'N').slice(0, 80);
  const example = `${problem.slice(0, 600)}\n    request: ${describe(r)}`;
  const seen = problems.get(key);
  if (!seen) problems.set(key, { count: 1, example });
  else {
    seen.count++;
    if (example.length < seen.example.length) seen.example = example;
  }
  if (failures.length < MAX_FAILURES_KEPT) failures.push({ ...rec, outcome: `${rec.outcome}: ${problem.slice(0, 300)}` });
}

function describe(r: FuzzRequest): string {
  const body = r.body ? ` body(${r.body.length}B)=${JSON.stringify(r.body.subarray(0, 300).toString('utf8'))}` : '';
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.length > 200 ? `${v.slice(0, 200)}…(${v.length} chars)` : v]));
  const path = r.path.length > 400 ? `${r.path.slice(0, 400)}…(${r.path.length} chars)` : r.path;
  return `${r.h2 ? 'HTTP/2 ' : ''}${r.anon ? 'anonymous ' : ''}${r.method} ${path} headers=${JSON.stringify(headers)}${body}`;
}

/** Errors Node's client raises before anything is sent: the request never reached the server. */
function isClientRefusal(e: NodeJS.ErrnoException): boolean {
  return /^ERR_(INVALID_|HTTP2_INVALID|HTTP_INVALID|UNESCAPED_CHARACTERS|HTTP2_HEADER_SINGLE_VALUE|HTTP2_PSEUDOHEADER)/.test(e.code ?? '');
}

function record(r: FuzzRequest, rec: RecordedRequest, out: { res: RawResult } | { err: NodeJS.ErrnoException }): void {
  answered++;
  if (diedAt !== undefined) {
    // The server is gone: whatever this is, it says nothing more than the death does.
    afterDeath++;
    rec.outcome = 'err' in out ? `after the death: ${out.err.code ?? out.err.message}` : `after the death: ${out.res.status || (out.res.timedOut ? 'timeout' : 'none')}`;
    return;
  }
  const op = (byOp[r.op] ??= {});
  if ('err' in out) {
    const e = out.err;
    if (isClientRefusal(e)) {
      bump(clientRefused, e.code ?? e.message);
      rec.outcome = `client refused: ${e.code}`;
      return;
    }
    const kind = e.code ?? e.message.replace(/\d+/g, 'N').slice(0, 80);
    rec.outcome = `transport: ${kind}`;
    if (e.code === 'ECONNREFUSED') {
      // Nobody listens any more: the server is gone. Stop sending, so that the last requests are the ones it got.
      stopping ??= 'the server refused connections (ECONNREFUSED)';
      diedAt ??= Date.now();
      bump(transportErrorKinds, kind);
      return;
    }
    if (stopping) return; // torn down on purpose
    if (!r.h2 && !KNOWN_H1_METHODS.has(r.method) && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
      // Node's HTTP/1.1 parser refuses a method it does not know with a bare 400 and closes the connection; with a
      // body still being written, the client sees the reset instead of the 400 (see problemWith). Counted apart.
      bump(clientRefused, `server's HTTP/1.1 parser closed on an unknown method (${e.code})`);
      rec.outcome = `parser refused: ${e.code}`;
      return;
    }
    // A broken connection is judged at the end: if the server died within a few seconds of it, it was the death.
    deferred.push({ at: Date.now(), judge: () => {
      transportErrors++;
      bump(transportErrorKinds, kind);
      bump(op, 'transport');
      addProblem(`transport error: ${e.code ?? ''} ${e.message}`, r, rec);
    } });
    return;
  }
  const res = out.res;
  const stalled = res.timedOut ? stalledSince(rec.sentAtWallMs) : 0;
  if (stalled >= 1000) {
    bump(clientRefused, 'timed out while this load process itself stalled for a second or more');
    rec.outcome = `timeout during a ${stalled} ms stall of the load process`;
    return;
  }
  rec.outcome = String(res.status || (res.timedOut ? 'timeout' : 'none'));
  bump(byClass, res.status ? `${Math.floor(res.status / 100)}xx` : 'none');
  bump(byStatus, String(res.status));
  bump(op, String(res.status));
  if (res.status >= 500) {
    let status: { reason?: string; message?: string } | undefined;
    try {
      status = JSON.parse(res.body.toString('utf8'));
    } catch {
      status = undefined;
    }
    const documented = isUpstream5xx(res.status, status, r.path);
    if (documented) documented5xx++;
    else undocumented5xx++;
    if (!documented || documented5xx <= 20) {
      if (fiveXX.length < MAX_5XX_KEPT) {
        fiveXX.push({
          documented,
          request: { h2: r.h2, ...(r.anon ? { anon: true } : {}), method: r.method, path: r.path.slice(0, 4000), headers: r.headers, bodyLength: r.body?.length ?? 0, bodyPrefix: r.body?.subarray(0, 2000).toString('utf8') ?? '' },
          status: res.status,
          answerHeaders: res.headers,
          answerBody: res.body.subarray(0, 4000).toString('utf8'),
        });
      }
      if (!documented && failures.length < MAX_FAILURES_KEPT && !problemWith(r, res)) failures.push(rec);
    }
  }
  const problem = problemWith(r, res);
  if (problem) addProblem(problem, r, rec);
}

// ---------------------------------------------------------------------------------------------------------------
// Sending

async function send(r0: FuzzRequest, session?: http2.ClientHttp2Session): Promise<void> {
  const r = fillIn(r0, placeholders);
  const rec = recorded(r, ++seq);
  ring.push(rec);
  // Kept longer than written: requests dispatched between the death and the runner's news of it are left out.
  if (ring.length > args.ring * 3) ring.shift();
  inflight++;
  try {
    const opts = { method: r.method, path: r.path, headers: r.headers, body: r.body, timeoutMs: REQUEST_TIMEOUT_MS, cutAfterMs: 200 };
    let res: RawResult;
    if (r.h2 && !session && overH2FieldLimit(r)) {
      // nghttp2 (compiled into Node) ends the whole connection with COMPRESSION_ERROR on a header field over 64 KiB
      // encoded; Go's server takes 1 MiB. Such a request gets a connection of its own, so that only it is lost.
      const own = await connect(!r.anon, tls);
      try {
        res = await h2Request(own, opts);
      } catch (e) {
        if (!/rstCode 9\)/.test((e as Error).message)) throw e;
        bump(clientRefused, 'HTTP/2 header field over 64 KiB: the connection ended with COMPRESSION_ERROR (nghttp2)');
        rec.outcome = 'h2 header field limit';
        return;
      } finally {
        own.destroy();
      }
    } else if (r.h2 && r.anon && !session) {
      res = await anonymousH2Request(opts);
    } else if (r.h2) {
      const slot = session ? undefined : r.anon ? anonSlot : slots[rr++ % slots.length]!;
      res = await h2Request(session ?? (await slot!.get()), opts);
      if (res.cut || res.timedOut) slot?.noteCancel();
    } else {
      res = await rawRequest({ port: args.port, agent: r.anon ? anonAgent : agent, ...opts });
    }
    record(r, rec, { res });
  } catch (e) {
    record(r, rec, { err: e as NodeJS.ErrnoException });
  } finally {
    inflight--;
  }
}

/** Whether a header field (the path counts) may pass nghttp2's 64 KiB limit once HPACK-encoded (≤ 30 bits a byte). */
function overH2FieldLimit(r: FuzzRequest): boolean {
  const longest = Math.max(r.path.length, ...Object.values(r.headers).map((v) => v.length));
  return longest > 16 * 1024;
}

/** Events removed by the cleanups of reseed(). */
let cleanedUp = 0;

/**
 * Deletes every stored event, namespace by namespace: the fuzz creates events (some of 3 MiB) in any namespace, and
 * live data that only grows would hide a leak behind it in the RSS series and make the hostile lists ever longer.
 */
async function cleanup(): Promise<void> {
  const listed = await rawRequest({ port: args.port, agent, method: 'GET', path: `${BASE}/events?includeObject=Metadata`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, timeoutMs: REQUEST_TIMEOUT_MS }).catch(() => undefined);
  if (listed?.status !== 200) return;
  const rows = (JSON.parse(listed.body.toString()) as { rows?: { object?: { metadata?: { namespace?: string } } }[] }).rows ?? [];
  cleanedUp += rows.length;
  const namespaces = new Set(rows.map((r) => r.object?.metadata?.namespace).filter((ns): ns is string => !!ns));
  await Promise.all(
    [...namespaces].map((ns) => rawRequest({ port: args.port, agent, method: 'DELETE', path: `${BASE}/namespaces/${encodeURIComponent(ns)}/events`, headers: {}, timeoutMs: REQUEST_TIMEOUT_MS }).catch(() => undefined)),
  );
}

/** Clears the stored events, then (re)creates the named ones the reads, updates and deletes aim at; not counted as fuzz requests. */
async function reseed(): Promise<void> {
  reseeds++;
  await cleanup();
  await Promise.all(
    FUZZ_NAMES.map((name) => {
      const body = Buffer.from(JSON.stringify(validEventObject(name, FUZZ_NS)));
      return rawRequest({ port: args.port, agent, method: 'POST', path: `${BASE}/namespaces/${FUZZ_NS}/events`, headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, body, timeoutMs: REQUEST_TIMEOUT_MS }).catch(() => undefined);
    }),
  );
}

/** The server's current OpenAPI v3 hashes and ETags, for the `$…` placeholders of hostile.ts. */
const placeholders: Record<string, string> = {};
async function learnPlaceholders(): Promise<void> {
  const get = (path: string, accept: string) => rawRequest({ port: args.port, agent, method: 'GET', path, headers: { accept }, timeoutMs: REQUEST_TIMEOUT_MS });
  try {
    const index = JSON.parse((await get('/openapi/v3', 'application/json')).body.toString()) as { paths: Record<string, { serverRelativeURL: string }> };
    const hash = (p: string) => /hash=([0-9A-F]+)/.exec(index.paths[p]?.serverRelativeURL ?? '')?.[1];
    placeholders.HASH_EVENTS = hash('apis/events.cluster.io/v1') ?? 'none';
    placeholders.HASH_CORE = hash('api/v1') ?? 'none';
    placeholders.ETAG_V2 = String((await get('/openapi/v2', 'application/json')).headers.etag ?? '"none"');
    placeholders.ETAG_APIS = String((await get('/apis', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).headers.etag ?? '"none"');
  } catch {
    // the generated requests then carry the literal placeholders: still hostile input
  }
}

type Job = { one: FuzzRequest } | { burst: FuzzRequest[] };

/** The jobs of the run, generated a chunk at a time (bodies up to 3 MiB: never all at once). */
function* jobs(): Generator<Job> {
  if (args.replay) {
    const list = JSON.parse(readFileSync(args.replay, 'utf8')) as RecordedRequest[];
    for (const x of list) {
      yield { one: { op: x.op, h2: x.h2, ...(x.anon ? { anon: true } : {}), method: x.method, path: x.path, headers: x.headers, ...(x.bodyBase64 !== undefined ? { body: Buffer.from(x.bodyBase64, 'base64') } : {}) } };
    }
    return;
  }
  const arb = fuzzRequests({ deepYaml: args.deepYaml });
  const burst = args.issue8 ? issue8Requests() : [];
  const burstAt = Math.floor(args.requests / 4);
  let produced = 0;
  for (let chunk = 0; produced < args.requests; chunk++) {
    const batch = fc.sample(arb, { seed: args.seed + chunk * 7919, numRuns: Math.min(CHUNK, args.requests - produced) });
    for (const r of batch) {
      if (burst.length && produced <= burstAt && produced + 1 > burstAt) {
        yield { burst };
        produced += burst.length;
      }
      if (produced >= args.requests) return;
      yield { one: r };
      produced++;
    }
  }
}

async function sendBurst(burst: FuzzRequest[]): Promise<void> {
  // One fresh connection for the whole burst, every request in flight at once.
  const answers: Record<string, number> = {};
  issue8 = { sent: burst.length, answers };
  let session: http2.ClientHttp2Session;
  try {
    session = await connect(true, tls);
  } catch (e) {
    bump(answers, `connect: ${(e as Error).message}`);
    return;
  }
  const before = { ...byOp.issue8 };
  await Promise.all(burst.map((r) => send(r, session)));
  session.destroy();
  for (const [k, v] of Object.entries(byOp.issue8 ?? {})) answers[k] = v - (before[k] ?? 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Watches

const watchStats: WatchStats = { clientStalled: 0, opened: 0, cleanStreams: 0, refused4xx: 0, framesSeen: 0, errorFrames4xx: 0, failed: 0, failures: [], byStatus: {} };
let watchesOpen = 0;
let watchesStopping = false;

function watchFailed(path: string, h2: boolean, why: string): void {
  if (diedAt !== undefined) return;
  deferred.push({ at: Date.now(), judge: () => {
    watchStats.failed++;
    if (watchStats.failures.length < 100) watchStats.failures.push(`${h2 ? 'HTTP/2' : 'HTTP/1.1'} GET ${path.slice(0, 600)}: ${why.slice(0, 600)}`);
  } });
}

/** Judges one finished watch: a clean stream of JSON frames, or a 4xx Status. */
function judgeWatch(path: string, h2: boolean, res: RawResult, startedAt: number): void {
  bump(watchStats.byStatus, String(res.status));
  if (res.timedOut && stalledSince(startedAt) >= 1000) return void watchStats.clientStalled++;
  if (res.status >= 200 && res.status < 300) {
    if (res.timedOut) return watchFailed(path, h2, 'the watch outlived its timeoutSeconds by 15 s');
    if (res.aborted) return watchFailed(path, h2, `the server broke off the stream after ${res.body.length} bytes`);
    for (const line of res.body.toString('utf8').split('\n')) {
      if (!line) continue;
      let frame: { type?: string; object?: { kind?: string; code?: number } };
      try {
        frame = JSON.parse(line);
      } catch {
        return watchFailed(path, h2, `a line that is not JSON: ${line.slice(0, 200)}`);
      }
      watchStats.framesSeen++;
      if (!['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'].includes(frame.type ?? '')) return watchFailed(path, h2, `frame of type ${frame.type}`);
      if (frame.type === 'ERROR') {
        const code = frame.object?.code ?? 0;
        if (frame.object?.kind !== 'Status' || code < 400 || code >= 500) return watchFailed(path, h2, `ERROR frame ${line.slice(0, 300)}`);
        watchStats.errorFrames4xx++;
      }
    }
    watchStats.cleanStreams++;
    return;
  }
  const req: FuzzRequest = { op: 'watch', h2, method: 'GET', path, headers: {} };
  const problem = problemWith(req, res);
  if (problem) return watchFailed(path, h2, problem);
  if (res.status >= 400 && res.status < 500) watchStats.refused4xx++;
  else watchFailed(path, h2, `status ${res.status}`);
}

async function watchLoop(i: number, paths: Iterator<string>): Promise<void> {
  // Bounded: a watch lasts at least until its timeoutSeconds (1–20 s) or a refusal; the loop ends with the run.
  for (let n = 0; n < 100_000 && !watchesStopping && !stopping; n++) {
    const next = paths.next();
    if (next.done) return;
    const path = next.value;
    const timeoutSeconds = Number(new URLSearchParams(path.split('?')[1]).get('timeoutSeconds') ?? 20);
    const h2 = i % 2 === 0;
    const opts = { method: 'GET', path, timeoutMs: (timeoutSeconds + 15) * 1000 };
    const startedAt = Date.now();
    watchStats.opened++;
    watchesOpen++;
    try {
      const slot = watchSlots[i % watchSlots.length]!;
      const res = h2 ? await h2Request(await slot.get(), opts) : await rawRequest({ port: args.port, agent: watchAgent, ...opts });
      if (h2 && (res.cut || res.timedOut)) slot.noteCancel();
      if (watchesStopping || stopping) {
        // cancelled at the end of the run: what arrived so far must still be well-formed
        if (res.status >= 200 && res.status < 300) watchStats.cleanStreams++;
        else judgeWatch(path, h2, res, startedAt);
      } else judgeWatch(path, h2, res, startedAt);
    } catch (e) {
      if (!watchesStopping && !stopping) watchFailed(path, h2, `transport error: ${(e as NodeJS.ErrnoException).code ?? ''} ${(e as Error).message}`);
    } finally {
      watchesOpen--;
    }
    if (!watchesStopping && !stopping) await new Promise((r) => setTimeout(r, 50));
  }
}

function* watchPaths(seed: number): Generator<string> {
  for (let chunk = 0; chunk < 10_000; chunk++) yield* fc.sample(watchPath, { seed: seed + chunk, numRuns: 100 });
}

// ---------------------------------------------------------------------------------------------------------------

function progress(): LoadProgress {
  return {
    elapsedMs: Date.now() - t0,
    sent: seq,
    answered,
    inflight,
    byClass,
    problems: problemCount,
    undocumented5xx,
    transportErrors,
    watches: { open: watchesOpen, opened: watchStats.opened, failed: watchStats.failed },
  };
}

async function main(): Promise<LoadResult> {
  mkdirSync(args.outDir, { recursive: true });
  await learnPlaceholders();
  await reseed();
  const ticker = setInterval(() => emit('progress', progress()), 1000);

  const paths = watchPaths(args.seed * 31 + 7);
  const watchers = args.replay ? [] : Array.from({ length: args.watches }, (_, i) => watchLoop(i, paths));

  const source = jobs();
  let sinceReseed = 0;
  let reseeding: Promise<void> | undefined;
  const worker = async () => {
    for (;;) {
      if (stopping) return;
      if (sinceReseed >= RESEED_EVERY && !reseeding) {
        sinceReseed = 0;
        reseeding = reseed().finally(() => (reseeding = undefined));
      }
      const next = source.next();
      if (next.done) return;
      const job = next.value;
      if ('burst' in job) {
        sinceReseed += job.burst.length;
        await sendBurst(job.burst);
      } else {
        sinceReseed++;
        await send(job.one);
      }
    }
  };
  await Promise.all(Array.from({ length: args.replay ? 1 : args.concurrency }, worker));

  watchesStopping = true;
  for (const s of [...slots, anonSlot, ...watchSlots]) s.destroy();
  watchAgent.destroy();
  await Promise.race([Promise.all(watchers), new Promise((r) => setTimeout(r, 5000))]);
  clearInterval(ticker);
  judgeDeferred();
  agent.destroy();
  anonAgent.destroy();

  const lastRequestsFile = join(args.outDir, 'last-requests.json');
  const failuresFile = join(args.outDir, 'failures.json');
  writeFileSync(lastRequestsFile, JSON.stringify(ring.filter((x) => diedAt === undefined || x.sentAtWallMs <= diedAt).slice(-args.ring), null, 1));
  writeFileSync(failuresFile, JSON.stringify(failures, null, 1));
  return {
    ...progress(),
    stoppedEarly: stopping,
    byStatus,
    byOp,
    clientRefused,
    problemKinds: [...problems].map(([kind, p]) => ({ kind, ...p })).sort((a, b) => b.count - a.count),
    fiveXX,
    documented5xx,
    transportErrorKinds,
    h2SessionsOpened,
    h2SessionsLost,
    retriedRefusedStreams,
    h2SessionsRetired: sessionsRetired,
    clientStalls: { count: stalls.length, longestMs: Math.max(0, ...stalls.map((s) => s.to - s.from)), totalMs: stalls.reduce((a, s) => a + s.to - s.from, 0) },
    issue8,
    watchStats,
    reseeds,
    cleanedUp,
    afterDeath,
    diedAt,
    sentBeforeDeath: diedAt === undefined ? undefined : (ring.filter((x) => x.sentAtWallMs <= diedAt!).at(-1)?.seq ?? 0),
    lastRequestsFile,
    failuresFile,
  };
}

main().then(
  (r) => {
    // The result can be large (every 5xx with its request): a file, and its name on stdout.
    const file = join(args.outDir, 'load-result.json');
    writeFileSync(file, JSON.stringify(r));
    emit('result', { file });
    process.exit(0);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
