/**
 * Deterministic regressions for what the fuzz test (fuzz.test.ts) found, each written as upstream behaves.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type http2 from 'node:http2';
import { TestServer, sampleEvent } from './helpers/server.ts';
import { clientTls, connectH2, h2Request, rawRequest } from './helpers/client.ts';

const BASE = '/apis/events.cluster.io/v1';

describe('fuzz findings', () => {
  const s = new TestServer();
  let agent: https.Agent;
  let session: http2.ClientHttp2Session;
  before(async () => {
    await s.start();
    const tls = clientTls(s.kubeconfig);
    agent = new https.Agent({ keepAlive: true, ...tls });
    session = await connectH2(s.port, tls);
  });
  after(async () => {
    agent.destroy();
    session.destroy();
    await s.cleanup();
  });

  // Found by fuzz.test.ts: kube-apiserver's secure server allows 1 MiB of request headers (apiserver
  // pkg/server/secure_serving.go: `MaxHeaderBytes: 1 << 20`); Node's HTTP/1.1 default of 16 KiB answered an empty
  // 431 or reset the connection, so a long but valid label selector never reached the handlers.
  it('serves a request whose URL carries a 60 KiB label selector, over HTTP/1.1 and HTTP/2', async () => {
    const values = Array.from({ length: 9000 }, (_, i) => `v${i}`).join(',');
    const path = `${BASE}/namespaces/default/events?labelSelector=${encodeURIComponent(`app in (${values})`)}`;
    assert.ok(path.length > 60_000);
    const h1 = await rawRequest({ port: s.port, agent, method: 'GET', path, timeoutMs: 10_000 }).catch((e: Error) => e);
    assert.ok(!(h1 instanceof Error), `HTTP/1.1: ${h1 instanceof Error ? h1.message : ''}`);
    assert.equal(h1.status, 200, `HTTP/1.1: ${h1.status} ${h1.body}`);
    assert.equal(JSON.parse(h1.body.toString()).kind, 'EventList');
    const h2 = await h2Request(session, { method: 'GET', path, timeoutMs: 10_000 }).catch((e: Error) => e);
    assert.ok(!(h2 instanceof Error), `HTTP/2: ${h2 instanceof Error ? h2.message : ''}`);
    assert.equal(h2.status, 200, `HTTP/2: ${h2.status} ${h2.body}`);
  });

  // Found by fuzz.test.ts: `timeoutSeconds` of 2147484 or more (≥ 2^31 ms) overflowed Node's setTimeout, which
  // then fires after 1 ms, so the watch ended at once. Upstream keeps it open for the requested time.
  it('keeps a watch with timeoutSeconds=3000000 (35 days) open', async () => {
    const started = Date.now();
    const r = await rawRequest({ port: s.port, agent, method: 'GET', path: `${BASE}/watch/namespaces/default/events?timeoutSeconds=3000000`, timeoutMs: 5_000, cutAfterMs: 1_000 });
    assert.equal(r.status, 200);
    assert.ok(r.cut, `the watch ended after ${Date.now() - started} ms instead of staying open`);
    assert.doesNotMatch(s.stderr, /TimeoutOverflowWarning/);
  });

  // Bodies the server answers without reading to the end (413 over the 3 MiB limit, 405 on a method the path
  // lacks) must not break an HTTP/2 connection shared with other requests. (The fuzz run first showed resets here;
  // they came from the Node client's own 10 MB session memory limit, see helpers/client.ts, not the server.)
  it('answers 4 concurrent over-limit creates on one HTTP/2 connection with 413, and the connection keeps working', async () => {
    const own = await connectH2(s.port, clientTls(s.kubeconfig));
    try {
      const body = Buffer.from(JSON.stringify(sampleEvent('huge', 'default', { note: 'n'.repeat(3_200_000) })));
      const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => h2Request(own, { method: 'POST', path: `${BASE}/namespaces/default/events`, headers, body, timeoutMs: 10_000 }).then((r) => `${r.status} ${r.body.toString().trim()}`, (e: Error) => e.message)),
      );
      for (const a of answers) assert.match(a, /^413 .*"message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge"/);
      const after = await h2Request(own, { method: 'GET', path: '/readyz', timeoutMs: 5_000 }).catch((e: Error) => e);
      assert.ok(!(after instanceof Error), after instanceof Error ? after.message : '');
      assert.equal(after.status, 200);
    } finally {
      own.destroy();
    }
  });

  it('answers 32 concurrent 1 MB requests to a method the path lacks on one HTTP/2 connection with 405', async () => {
    const own = await connectH2(s.port, clientTls(s.kubeconfig));
    try {
      const body = Buffer.alloc(1_000_000, 'x');
      const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
      const answers = await Promise.all(
        Array.from({ length: 32 }, () => h2Request(own, { method: 'OPTIONS', path: `${BASE}/namespaces/default/events/x`, headers, body, timeoutMs: 10_000 }).then((r) => String(r.status), (e: Error) => e.message)),
      );
      assert.deepEqual([...new Set(answers)], ['405']);
      const after = await h2Request(own, { method: 'GET', path: '/readyz', timeoutMs: 5_000 }).catch((e: Error) => e);
      assert.ok(!(after instanceof Error), after instanceof Error ? after.message : '');
    } finally {
      own.destroy();
    }
  });

  // Found by `npm run fuzz` (issue 8): a request target starting with `//` was parsed as a protocol-relative URL
  // (WHATWG), which has no host here: a 500 "Invalid URL" and an unhandled error in the log. Go's ParseRequestURI
  // keeps it a path, so upstream answers as for any other unknown path.
  it('answers request targets starting with // as paths: 404 outside the API, never a 500', async () => {
    for (const path of ['//', '///', '//x/apis', '//a?x=%zz']) {
      const r = await rawRequest({ port: s.port, agent, method: 'GET', path, timeoutMs: 5_000 });
      assert.equal(r.status, 404, `${path}: ${r.status} ${r.body}`);
      assert.equal(r.body.toString(), '404 page not found\n');
      const h = await h2Request(session, { method: 'HEAD', path, timeoutMs: 5_000 });
      assert.equal(h.status, 404, `HEAD ${path} over HTTP/2`);
    }
    assert.doesNotMatch(s.stderr, /Unhandled error/);
  });
});
