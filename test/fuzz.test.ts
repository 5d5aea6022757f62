/**
 * Property-based fuzzing (issue 4, "Resilience"): seeded, bounded batches of hostile requests against every
 * operation and query parameter of the events API (arbitraries in helpers/hostile.ts), 8 at a time. Every answer
 * must arrive in time and whole, errors must be `Status` objects whose code is the HTTP status and whose reason is
 * set, and nothing may be a 5xx except the few reason-less / Timeout answers upstream itself gives (listed below).
 * The server must stay up, keep answering /readyz, log no unhandled error, and its RSS must not run away.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type http2 from 'node:http2';
import https from 'node:https';
import fc from 'fast-check';
import { parse as parseYAML } from 'yaml';
import { TestServer, sampleEvent } from './helpers/server.ts';
import { clientTls, connectH2, h2Request, rawRequest, rssBytes, type RawResult } from './helpers/client.ts';
import { BASE, FUZZ_NAMES, FUZZ_NS, fuzzRequest, type FuzzRequest } from './helpers/hostile.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 4242);
const BATCH = 8;
const RUNS = Number(process.env.FUZZ_RUNS ?? 60); // 480 requests
const REQUEST_TIMEOUT_MS = 10_000; // the slowest legitimate answer is upstream's 3 s "Too large resource version"
const RSS_SLACK_BYTES = 96 * 1024 * 1024;

/**
 * The one 5xx kept from upstream: a resourceVersion the server has not reached yet is a 504 Timeout after 3 s with
 * Retry-After — not bad input but "not yet", the signal clients retry on.
 */
const UPSTREAM_5XX: { code: number; reason: string; message: RegExp }[] = [
  { code: 504, reason: 'Timeout', message: /^Timeout: Too large resource version: \d+, current: \d+$/ },
];

function describeRequest(r: FuzzRequest): string {
  const body = r.body ? ` body(${r.body.length}B)=${JSON.stringify(r.body.subarray(0, 300).toString('utf8'))}` : '';
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, v.length > 200 ? `${v.slice(0, 200)}…(${v.length} chars)` : v]));
  const path = r.path.length > 400 ? `${r.path.slice(0, 400)}…(${r.path.length} chars)` : r.path;
  return `${r.h2 ? 'HTTP/2 ' : ''}${r.method} ${path} headers=${JSON.stringify(headers)}${body}`;
}

/** Parses an answer body by its content type; throws when it is neither valid JSON nor valid YAML. */
function parseBody(res: RawResult): unknown {
  const type = String(res.headers['content-type'] ?? '');
  const text = res.body.toString('utf8');
  if (type.startsWith('application/json')) {
    try {
      return JSON.parse(text);
    } catch (e) {
      // A watch answers with a stream of JSON frames, one per line (possibly none).
      if (!text.includes('\n') && text !== '') throw e;
      return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    }
  }
  if (type.startsWith('application/yaml')) return parseYAML(text);
  throw new Error(`unexpected content-type ${JSON.stringify(type)}`);
}

/** Returns what is wrong with one answer, or undefined when it is acceptable. */
function problemWith(req: FuzzRequest, res: RawResult): string | undefined {
  if (res.timedOut) return `no complete answer within ${REQUEST_TIMEOUT_MS} ms (status ${res.status || 'none'})`;
  if (res.aborted) return `the server broke off the response (status ${res.status})`;
  const hasBody = req.method !== 'HEAD';
  if (res.status >= 200 && res.status < 300) {
    if (res.cut || !hasBody || res.status === 204) return undefined;
    try {
      parseBody(res);
    } catch (e) {
      return `2xx body does not parse: ${(e as Error).message}: ${res.body.subarray(0, 200)}`;
    }
    return undefined;
  }
  if (res.status < 400 || res.status > 599) return `unexpected status ${res.status}`;
  if (!hasBody) return res.status >= 500 ? `HEAD answered ${res.status}` : undefined;
  const type = String(res.headers['content-type'] ?? '');
  // Outside the API prefixes (a `..` path parameter can lead there) upstream answers a plain-text 404, and for
  // `/apis/<group>/<version>/watch/` with nothing after it the RequestInfo filter's plain-text 500.
  const text = res.body.toString();
  if (type.startsWith('text/plain') && res.status === 404 && text === '404 page not found\n') return undefined;
  let status: any;
  try {
    status = parseBody(res);
  } catch (e) {
    return `error ${res.status} without a Status body: ${(e as Error).message}: ${JSON.stringify(res.body.subarray(0, 200).toString())}`;
  }
  if (status?.kind !== 'Status' || status.apiVersion !== 'v1' || status.status !== 'Failure') return `error ${res.status} body is not a failure Status: ${JSON.stringify(status).slice(0, 300)}`;
  if (status.code !== res.status) return `Status code ${status.code} != HTTP ${res.status}`;
  if (typeof status.message !== 'string' || status.message === '') return `Status ${res.status} without message`;
  if (res.status >= 500) {
    const known = UPSTREAM_5XX.some((k) => k.code === res.status && (status.reason ?? '') === k.reason && k.message.test(status.message));
    return known ? undefined : `server error ${res.status}: ${JSON.stringify(status)}`;
  }
  if (!status.reason) return `Status ${res.status} without reason: ${JSON.stringify(status)}`;
  return undefined;
}

describe('fuzz', () => {
  it(`answers ${RUNS * BATCH} hostile requests with 4xx Status errors, never a 5xx or a hang (seed ${SEED})`, { timeout: 60_000 + RUNS * 1000 }, async (t) => {
    const s = new TestServer();
    let agent: https.Agent | undefined;
    // One HTTP/2 session per batch, so that a session the server breaks shows up once, not in every later batch.
    const h2: { session?: Promise<http2.ClientHttp2Session> } = {};
    const closeSession = () => {
      void h2.session?.then((x) => x.destroy(), () => {});
      delete h2.session;
    };
    try {
      await s.start();
      const pid = s.proc!.pid!;
      const tls = clientTls(s.kubeconfig);
      agent = new https.Agent({ keepAlive: true, maxSockets: BATCH, ...tls });
      const send = async (r: FuzzRequest) => {
        const opts = { method: r.method, path: r.path, headers: r.headers, body: r.body, timeoutMs: REQUEST_TIMEOUT_MS, cutAfterMs: 200 };
        if (!r.h2) return rawRequest({ port: s.port, agent: agent!, ...opts });
        h2.session ??= connectH2(s.port, tls);
        return h2Request(await h2.session, opts);
      };
      const alive = () => s.proc!.exitCode === null && s.proc!.signalCode === null;
      const byStatus = new Map<string, number>();
      // Every distinct kind of problem with its shortest example: one run shows the lead all of them at once.
      const problems = new Map<string, { count: number; example: string }>();
      let deathCause: string | undefined;

      const runBatch = async (batch: FuzzRequest[]) => {
        if (!alive()) throw new Error('server process died');
        for (const name of FUZZ_NAMES) await s.request('POST', `${BASE}/namespaces/${FUZZ_NS}/events`, sampleEvent(name, FUZZ_NS));
        const results = await Promise.all(batch.map((r) => send(r).then((res) => ({ res }), (err: Error) => ({ err }))));
        closeSession();
        for (const [i, out] of results.entries()) {
          const req = batch[i]!;
          if ('res' in out) byStatus.set(`${req.op} ${out.res.status}`, (byStatus.get(`${req.op} ${out.res.status}`) ?? 0) + 1);
          const problem = 'err' in out ? `transport error: ${out.err.message}` : problemWith(req, out.res);
          if (!problem) continue;
          const key = problem.replace(/\d+/g, 'N').slice(0, 80);
          const example = `${problem.slice(0, 600)}\n    request: ${describeRequest(req)}`;
          const seen = problems.get(key);
          if (!seen) problems.set(key, { count: 1, example });
          else {
            seen.count++;
            if (example.length < seen.example.length) seen.example = example;
          }
        }
        if (!alive()) {
          deathCause = `after: ${batch.map(describeRequest).join('\n  ')}\n${s.stderr.slice(-2000)}`;
          throw new Error('server process died');
        }
      };

      // Warm up (JIT, caches, the watch cache's first objects) before the memory baseline.
      for (const batch of fc.sample(fc.array(fuzzRequest, { minLength: BATCH, maxLength: BATCH }), { seed: SEED + 1, numRuns: 10 })) await runBatch(batch);
      const rssBefore = rssBytes(pid);

      const started = Date.now();
      const run = await fc.check(fc.asyncProperty(fc.array(fuzzRequest, { minLength: BATCH, maxLength: BATCH }), runBatch), {
        seed: SEED,
        numRuns: RUNS,
        endOnFailure: true, // a dead server fails every replay: shrinking would only obscure the cause
        plugins: [fc.interruptAfterTimeLimit(RUNS * 1000, { failOnInterrupt: true })], // ~5× the usual pace
      });
      const rssAfter = alive() ? rssBytes(pid) : 0;
      t.diagnostic(`${RUNS * BATCH} requests in ${Date.now() - started} ms; RSS ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssAfter / 2 ** 20).toFixed(0)} MiB`);
      t.diagnostic(`answers: ${[...byStatus].sort().map(([k, n]) => `${k}×${n}`).join(', ')}`);
      assert.equal(deathCause, undefined, `the server died ${deathCause}`);
      assert.ok(!run.failed, `fast-check run failed: ${(run.errorInstance as Error | null)?.message ?? (run.interrupted ? 'interrupted (time limit)' : '')}`);
      const report = [...problems.values()].map((p) => `- ${p.count}× ${p.example}`).join('\n');
      assert.equal(problems.size, 0, `${problems.size} kinds of bad answers:\n${report}`);

      assert.ok(alive(), 'server process died');
      const ready = await s.request('GET', '/readyz');
      assert.equal(ready.status, 200, ready.body);
      assert.doesNotMatch(s.stderr, /Unhandled error|Fatal error|uncaught/i);
      assert.ok(rssAfter - rssBefore < RSS_SLACK_BYTES, `RSS grew by ${((rssAfter - rssBefore) / 2 ** 20).toFixed(0)} MiB`);
    } finally {
      agent?.destroy();
      closeSession();
      await s.cleanup();
    }
  });
});
