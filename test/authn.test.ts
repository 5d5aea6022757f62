/**
 * End-to-end: every way a client proves who it is (issue 11, this slice): front-proxy headers from a trusted proxy
 * certificate, tokens from --token-auth-file, anonymous requests, and `kubectl auth whoami` (SelfSubjectReview) with
 * every pinned kubectl, over real sockets against the real server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSigningKey, type IssuedCert, issueCertificate } from '../src/cmd/x509gen.ts';
import { TestServer } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'authn-e2e-'));
const TOKEN = 'd7a1f0c2-token-of-alice';
const BAD_TOKEN = 'never-logged-0xBADC0FFEE';
const s = new TestServer();
let proxyCA: IssuedCert;
let proxy: IssuedCert;
let strangerProxy: IssuedCert;
let caPem: string;

before(async () => {
  proxyCA = await issueCertificate({ subject: [{ CN: ['front-proxy-ca'] }], validDays: 1, ca: true });
  proxy = await issueCertificate({ subject: [{ CN: ['front-proxy-client'] }], validDays: 1, clientAuth: true }, { certPem: proxyCA.certPem, key: proxyCA.key });
  strangerProxy = await issueCertificate({ subject: [{ CN: ['not-the-aggregator'] }], validDays: 1, clientAuth: true }, { certPem: proxyCA.certPem, key: proxyCA.key });
  writeFileSync(join(dir, 'front-proxy-ca.crt'), proxyCA.certPem);
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},alice,uid-alice,"dev,ops"\nother-token,bob,uid-bob\n`);
  await s.start([
    '-v=3', // every request is logged: the token must still not appear
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
    `--requestheader-client-ca-file=${join(dir, 'front-proxy-ca.crt')}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-uid-headers=X-Remote-Uid',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  ]);
  caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
});
after(async () => {
  await s.cleanup();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

function send(method: string, path: string, opts: { cert?: IssuedCert; headers?: Record<string, string | string[]>; body?: object } = {}): Promise<Answer> {
  const payload = opts.body ? Buffer.from(JSON.stringify(opts.body)) : undefined;
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: s.port,
        method,
        path,
        ca: caPem,
        servername: 'localhost',
        agent: false,
        ...(opts.cert ? { cert: opts.cert.certPem, key: opts.cert.key.pem } : {}),
        headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // plain text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const SPOOF = { 'X-Remote-User': 'mallory', 'X-Remote-Group': ['system:masters', 'dev'], 'X-Remote-Uid': 'u-m', 'X-Remote-Extra-Scopes': 'all' };

async function admin(): Promise<IssuedCert> {
  const key = await importSigningKey(readFileSync(join(s.dataDir, 'pki/admin.key'), 'utf8'));
  return { certPem: readFileSync(join(s.dataDir, 'pki/admin.crt'), 'utf8'), key };
}

describe('front-proxy request headers', () => {
  it('map the user of a request from the trusted proxy certificate', async () => {
    const r = await send('POST', SSR, {
      cert: proxy,
      body: review,
      headers: { 'X-Remote-User': 'jane@example.com', 'X-Remote-Group': ['team-a', 'team-b'], 'X-Remote-Uid': 'u-jane', 'X-Remote-Extra-Example.com%2fScopes': 'read', 'X-Remote-Extra-Reason': 'audit' },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'SelfSubjectReview');
    assert.match(r.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(r.body.status.userInfo, {
      username: 'jane@example.com',
      uid: 'u-jane',
      groups: ['team-a', 'team-b', 'system:authenticated'],
      extra: { 'example.com/scopes': ['read'], reason: ['audit'] },
    });
    // what the proxied user may do is still authorization's question
    const list = await send('GET', '/apis/events.cluster.io/v1/events', { cert: proxy, headers: { 'X-Remote-User': 'jane@example.com' } });
    assert.equal(list.status, 403);
    assert.match(list.body.message, /User "jane@example\.com" cannot list resource "events"/);
  });

  it('are ignored from every other client: the admin certificate, no certificate, a proxy name not allowed', async () => {
    const fromAdmin = await send('POST', SSR, { cert: await admin(), body: review, headers: SPOOF });
    assert.equal(fromAdmin.status, 201);
    assert.equal(fromAdmin.body.status.userInfo.username, 'admin');
    assert.deepEqual(fromAdmin.body.status.userInfo.groups, ['system:masters', 'system:authenticated']);
    const anonymous = await send('GET', '/apis/events.cluster.io/v1/events', { headers: SPOOF });
    assert.equal(anonymous.status, 403);
    assert.match(anonymous.body.message, /User "system:anonymous" cannot list/);
    // a certificate of the proxy CA with another name is refused outright (the client CA did not issue it either)
    const stranger = await send('POST', SSR, { cert: strangerProxy, body: review, headers: SPOOF });
    assert.equal(stranger.status, 401);
    // the proxy's certificate without headers names nobody: the client CA did not issue it
    assert.equal((await send('POST', SSR, { cert: proxy, body: review })).status, 401);
  });
});

describe('tokens and anonymous requests', () => {
  it('authenticates token file users; a bad token is 401 and never logged', async () => {
    const r = await send('POST', SSR, { body: review, headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status.userInfo, { username: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'] });
    const bad = await send('GET', '/apis/events.cluster.io/v1/events', { headers: { authorization: `Bearer ${BAD_TOKEN}` } });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    // a refused token is never an anonymous request, not even on a public path
    assert.equal((await send('GET', '/healthz', { headers: { authorization: `Bearer ${BAD_TOKEN}` } })).status, 401);
    const spaced = await send('GET', '/apis/events.cluster.io/v1/events', { headers: { authorization: `Bearer  ${TOKEN}` } });
    assert.equal(spaced.status, 403, 'two spaces: the token is ignored, the request is anonymous');
    assert.equal(spaced.headers.warning, '299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"');
    await new Promise((r) => setTimeout(r, 300)); // the log is flushed in batches
    assert.match(s.stderr, /"HTTP" verb="GET" URI="\/apis\/events\.cluster\.io\/v1\/events"/, 'requests are logged at -v=3');
    assert.ok(!s.stderr.includes(BAD_TOKEN), 'the refused token is not in the log');
    assert.ok(!s.stderr.includes(TOKEN), 'the accepted token is not in the log');
  });

  it('answers anonymous requests: health and version, and 403 (not 401) elsewhere, as upstream', async () => {
    assert.equal((await send('GET', '/healthz')).status, 200);
    assert.equal((await send('GET', '/version')).status, 200);
    const metrics = await send('GET', '/metrics');
    assert.equal(metrics.status, 403);
    assert.equal(metrics.body.message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
    const create = await send('POST', SSR, { body: review });
    assert.equal(create.status, 403, 'system:basic-user is bound to system:authenticated only');
    assert.equal(create.body.message, 'selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope');
  });

  it('records the attempts in the catalogue metrics', async () => {
    const r = await s.request('GET', '/metrics');
    assert.equal(r.status, 200);
    assert.match(r.body, /^authentication_attempts\{result="success"\} \d+$/m);
    assert.match(r.body, /^authentication_attempts\{result="error"\} \d+$/m);
    assert.match(r.body, /^authenticated_user_requests\{username="admin"\} \d+$/m);
    assert.match(r.body, /^authenticated_user_requests\{username="email_id"\} \d+$/m);
    assert.match(r.body, /^authenticated_user_requests\{username="other"\} \d+$/m);
    assert.match(r.body, /^authentication_duration_seconds_count\{result="success"\} \d+$/m);
    assert.match(r.body, /^apiserver_client_certificate_expiration_seconds_count [1-9]\d*$/m);
  });
});

describe('kubectl auth whoami', () => {
  it('prints the token user with every pinned kubectl (1.32 and later send the review in protobuf)', async () => {
    const kubeconfig = join(dir, 'alice.kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "${s.url}", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}}]`,
        `users: [{name: alice, user: {token: ${TOKEN}}}]`,
        'contexts: [{name: c, context: {cluster: c, user: alice}}]',
        'current-context: c',
      ].join('\n'),
    );
    for (const version of ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33']) {
      const r = await s.kubectl(['auth', 'whoami', `--kubeconfig=${kubeconfig}`], { version });
      assert.equal(r.code, 0, `${version}: ${r.stderr}`);
      assert.match(r.stdout, /^Username\s+alice$/m, version);
      assert.match(r.stdout, /^UID\s+uid-alice$/m, version);
      assert.match(r.stdout, /^Groups\s+\[dev ops system:authenticated\]$/m, version);
    }
  });

  it('prints the admin certificate\'s user and its credential id; a bad token is refused', async () => {
    const r = await s.kubectl(['auth', 'whoami', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const ssr = JSON.parse(r.stdout);
    assert.equal(ssr.status.userInfo.username, 'admin');
    assert.match(ssr.status.userInfo.extra['authentication.cluster.io/credential-id'][0], /^X509SHA256=[0-9a-f]{64}$/);
    // create is the one route: 405 for other methods on the collection, no named paths at all
    assert.equal((await s.request('GET', SSR)).status, 405);
    assert.equal((await s.request('DELETE', SSR)).status, 405);
    assert.equal((await s.request('GET', `${SSR}/x`)).status, 404);
    const yaml = await s.request('POST', SSR, 'apiVersion: authentication.k8s.io/v1\nkind: SelfSubjectReview\n', { 'content-type': 'application/yaml' });
    assert.equal(yaml.status, 201);
    const xml = await s.request('POST', SSR, '<x/>', { 'content-type': 'application/xml' });
    assert.equal(xml.status, 415);
    assert.equal(xml.json().message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    const bad = await s.kubectl(['auth', 'whoami', `--server=${s.url}`, `--token=${BAD_TOKEN}`, '--kubeconfig=/dev/null', `--certificate-authority=${join(s.dataDir, 'pki/ca.crt')}`], { version: '1.33' });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /Unauthorized/);
  });
});

describe('--anonymous-auth=false', () => {
  const closed = new TestServer();
  before(() => closed.start(['--anonymous-auth=false']));
  after(() => closed.cleanup());

  it('answers a request without credentials with 401 everywhere, the health endpoints included (as upstream)', async () => {
    for (const path of ['/healthz', '/version', '/apis/events.cluster.io/v1/events']) {
      const r = await closed.request('GET', path, undefined, {}, false);
      assert.equal(r.status, 401, path);
    }
    assert.equal((await closed.request('GET', '/healthz')).status, 200, 'the admin certificate still works');
  });
});

describe('unauthenticated HTTP/2 (UnauthenticatedHTTP2DOSMitigation, on by default)', () => {
  /** Three requests on one HTTP/2 connection while the server keeps it; the GOAWAY frames and whether it closed. */
  async function onOneConnection(path: string, opts: { cert?: IssuedCert; headers?: Record<string, string> } = {}): Promise<{ statuses: number[]; goaway: boolean; closed: boolean }> {
    const session = http2.connect(s.url, { ca: caPem, servername: 'localhost', ...(opts.cert ? { cert: opts.cert.certPem, key: opts.cert.key.pem } : {}) });
    let goaway = false;
    let closed = false;
    session.on('goaway', () => (goaway = true));
    session.on('close', () => (closed = true));
    session.on('error', () => {});
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 3 && !goaway && !closed; i++) {
        statuses.push(
          await new Promise<number>((resolve, reject) => {
            const req = session.request({ ':path': path, ...opts.headers });
            let status = 0;
            req.on('response', (h) => (status = Number(h[':status'])));
            req.on('data', () => {});
            req.on('end', () => resolve(status));
            req.on('error', reject);
            req.end();
          }),
        );
        await new Promise((r) => setTimeout(r, 50));
      }
      // After a GOAWAY the server closes the connection once its streams are done: wait for that (bounded).
      if (goaway && !closed) await new Promise((r) => { session.once('close', r); setTimeout(r, 5_000).unref(); });
    } finally {
      session.close();
    }
    return { statuses, goaway, closed };
  }

  it('an anonymous request or a refused token ends its connection after the answer (GOAWAY); an authenticated one keeps it', async () => {
    const anonymous = await onOneConnection('/healthz');
    assert.deepEqual(anonymous, { statuses: [200], goaway: true, closed: true }, 'anonymous /healthz');
    const refused = await onOneConnection('/apis/events.cluster.io/v1/namespaces/default/events', { headers: { authorization: `Bearer ${BAD_TOKEN}` } });
    assert.deepEqual(refused, { statuses: [401], goaway: true, closed: true }, 'a refused token');
    const token = await onOneConnection('/healthz', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.deepEqual(token, { statuses: [200, 200, 200], goaway: false, closed: false }, 'a token of the token file');
    const cert = await onOneConnection('/healthz', { cert: await admin() });
    assert.deepEqual(cert, { statuses: [200, 200, 200], goaway: false, closed: false }, 'the admin certificate');
    assert.ok(!s.stderr.includes(BAD_TOKEN), 'the refused token reached the log');
  });
});
