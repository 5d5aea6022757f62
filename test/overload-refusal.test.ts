/**
 * End-to-end, over HTTP/2: while a max-in-flight limit is reached, the excess gets upstream's 429 straight from the
 * stream (the early refusal in http2-early-refusal.ts), byte-for-byte the answer the ordinary path gives, without tearing the
 * connection down however many refused requests carry bodies; exempt requests and the answers upstream gives before
 * max-in-flight (401, 400, 404) are unchanged.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { readFileSync } from 'node:fs';
import { parse as parseYAML } from 'yaml';
import { TestServer, sampleEvent } from './helpers/server.ts';

const BASE = '/apis/events.cluster.io/v1';
const TEXT = 'Too many requests, please try again later.\n';
const s = new TestServer();
let session: http2.ClientHttp2Session;
let held: http2.ClientHttp2Stream;
let heldDone: Promise<number>;

interface Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

function h2(sess: http2.ClientHttp2Session, method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    const st = sess.request(headers, { endStream: body === undefined });
    let h: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    st.on('response', (x) => (h = x));
    st.on('data', (c: Buffer) => chunks.push(c));
    st.on('end', () => resolve({ status: Number(h[':status']), headers: h, body: Buffer.concat(chunks).toString('utf8') }));
    st.on('error', reject);
    if (body !== undefined) st.end(body);
  });
}

function connect(withCert: boolean): http2.ClientHttp2Session {
  const kc = parseYAML(readFileSync(s.kubeconfig, 'utf8'));
  const user = kc.users[0].user;
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64');
  const opts: http2.SecureClientSessionOptions = withCert
    ? { ca, cert: Buffer.from(user['client-certificate-data'], 'base64'), key: Buffer.from(user['client-key-data'], 'base64') }
    : { ca };
  return http2.connect(s.url, opts);
}

const event = (name: string) => JSON.stringify(sampleEvent(name, 'ov'));

before(async () => {
  // Without anonymous requests, a request without credentials is the 401 that comes before max-in-flight (with them
  // it would be system:anonymous, limited like anyone else).
  await s.start(['--max-mutating-requests-inflight=1', '--max-requests-inflight=50', '--anonymous-auth=false']);
  session = connect(true);
  // The one mutating slot, held: a create whose body has not finished arriving.
  const body = event('held');
  held = session.request({ ':method': 'POST', ':path': `${BASE}/namespaces/ov/events`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  heldDone = new Promise((resolve, reject) => {
    held.on('response', (h) => resolve(Number(h[':status'])));
    held.on('error', reject);
  });
  held.write(body.slice(0, 10));
  held.resume();
  // Wait until the held request is counted.
  for (let i = 0; i < 100; i++) {
    if ((await h2(session, 'POST', `${BASE}/namespaces/ov/events`, event(`probe-${i}`))).status === 429) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the held create never filled the mutating limit');
});

after(async () => {
  session?.destroy();
  await s.cleanup();
});

describe('early refusal over HTTP/2 while saturated', () => {
  it('answers every excess create with the upstream 429 and keeps the connection', async () => {
    // Nearly the session's 1000 streams at once, each with a body, three times: reading the bodies of refused
    // streams (instead of letting node reset them) got such a session torn down with ENHANCE_YOUR_CALM.
    for (let batch = 0; batch < 3; batch++) {
      const answers = await Promise.all(Array.from({ length: 900 }, (_, i) => h2(session, 'POST', `${BASE}/namespaces/ov/events`, event(`x-${batch}-${i}`))));
      for (const a of answers) {
        assert.equal(a.status, 429);
        assert.equal(a.headers['retry-after'], '1');
        assert.equal(a.body, TEXT);
      }
    }
    assert.equal(session.closed || session.destroyed, false, 'the session survived');
  });

  it('sends the same headers as the HTTP/1.1 answer', async () => {
    const a2 = await h2(session, 'DELETE', `${BASE}/namespaces/ov/events/x`);
    const a1 = await s.request('DELETE', `${BASE}/namespaces/ov/events/x`);
    assert.equal(a1.status, 429);
    assert.equal(a1.body, a2.body);
    for (const k of ['cache-control', 'retry-after', 'content-type', 'x-content-type-options', 'content-length']) assert.equal(a2.headers[k], a1.headers[k], k);
    assert.equal(a2.headers['content-type'], 'text/plain; charset=utf-8');
    assert.ok(a2.headers.date);
  });

  it('still serves exempt and read-only requests', async () => {
    assert.equal((await h2(session, 'GET', '/readyz')).status, 200);
    assert.equal((await h2(session, 'GET', '/livez')).status, 200);
    assert.equal((await h2(session, 'GET', `${BASE}/namespaces/ov/events`)).status, 200);
    const watch = await h2(session, 'GET', `${BASE}/namespaces/ov/events?watch=1&timeoutSeconds=1`);
    assert.equal(watch.status, 200);
  });

  it('gives the answers that come before max-in-flight first', async () => {
    const anon = connect(false);
    try {
      assert.equal((await h2(anon, 'POST', `${BASE}/namespaces/ov/events`, event('anon'))).status, 401);
    } finally {
      anon.destroy();
    }
    const badTimeout = await h2(session, 'POST', `${BASE}/namespaces/ov/events?timeout=soon`, event('t'));
    assert.equal(badTimeout.status, 400);
    assert.equal(JSON.parse(badTimeout.body).message, 'invalid timeout specified in the request URL');
    assert.equal((await h2(session, 'POST', `${BASE}/namespaces/%zz/events`, event('e'))).status, 400);
  });

  it('admits again once the held request finishes', async () => {
    held.end(event('held').slice(10));
    assert.equal(await heldDone, 201);
    let status = 0;
    for (let i = 0; i < 50 && status !== 201; i++) status = (await h2(session, 'POST', `${BASE}/namespaces/ov/events`, event(`after-${i}`))).status;
    assert.equal(status, 201);
  });
});
