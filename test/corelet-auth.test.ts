/**
 * The corelet's API behind kubelet's authentication and authorization, end to end: a real API server (Node,RBAC,
 * a token file) and a real corelet process started with --kubeconfig (a node identity), --client-ca-file,
 * --authentication-token-webhook, --authorization-mode=Webhook and --anonymous-auth=false. The corelet runs no pods
 * (no --pod-manifest-path), so it needs no cgroups and the test runs everywhere; the node proxy part needs a
 * non-loopback address (upstream never proxies to loopback) and is skipped without one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { importSigningKey, issueCertificate } from '../src/cmd/x509gen.ts';
import { ROOT, TestServer } from './helpers/server.ts';
import { stopProcess } from './helpers/process.ts';
import { until } from './helpers/until.ts';

const NODE = 'auth-node';
const TOKEN = 'tina-secret-token-0123456789';

function externalIPv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

const ip = externalIPv4();
const address = ip ?? '127.0.0.1';
const s = new TestServer();
let corelet: ChildProcess;
let coreletLog = '';
const log = () => `corelet log:\n${coreletLog}`;
let port = 0;

interface Identity {
  certPem: string;
  keyPem: string;
}

async function signed(cn: string, orgs: string[], usage: { clientAuth?: boolean; serverAuth?: boolean; hosts?: string[] }): Promise<Identity> {
  const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
  const caKey = await importSigningKey(readFileSync(join(s.dataDir, 'pki/ca.key'), 'utf8'));
  const c = await issueCertificate({ subject: [...orgs.map((o) => ({ O: [o] })), { CN: [cn] }], validDays: 1, ...usage }, { certPem: caPem, key: caKey });
  return { certPem: c.certPem, keyPem: c.key.pem };
}

/** A request straight to the corelet (its serving certificate is checked against the cluster CA). */
function direct(path: string, o: { id?: Identity; token?: string; method?: string } = {}): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: address,
        port,
        path,
        method: o.method ?? 'GET',
        ca: readFileSync(join(s.dataDir, 'pki/ca.crt')),
        servername: undefined,
        agent: false,
        ...(o.id ? { cert: o.id.certPem, key: o.id.keyPem } : {}),
        headers: o.token ? { authorization: `Bearer ${o.token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? '') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A request to the API server as `id`. */
function asUser(id: Identity, method: string, path: string, body?: object): Promise<{ status: number; body: any }> {
  const payload = body ? Buffer.from(JSON.stringify(body)) : undefined;
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: s.port, method, path, cert: id.certPem, key: id.keyPem, ca: readFileSync(join(s.dataDir, 'pki/ca.crt')), agent: false, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b ? JSON.parse(b) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}


before(async () => {
  const tokenFile = join(s.dataDir, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},tina,uid-tina,"readers"\n`);
  await s.start(['--authorization-mode=Node,RBAC', '--kubelet-preferred-address-types=InternalIP', `--token-auth-file=${tokenFile}`]);
  // Who may read the node agent's statistics: group readers (tina's token) and user dave.
  for (const obj of [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'node-stats-reader' }, rules: [{ apiGroups: [''], resources: ['nodes/stats'], verbs: ['get'] }] },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'node-stats-readers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-stats-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' }, { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'dave' }],
    },
  ]) {
    const path = obj.kind === 'ClusterRole' ? '/apis/rbac.authorization.k8s.io/v1/clusterroles' : '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
    assert.equal((await s.request('POST', path, obj)).status, 201);
  }
  // The corelet: a node identity for the API server, a serving certificate of the cluster CA.
  const node = await signed(`system:node:${NODE}`, ['system:nodes'], { clientAuth: true });
  const serving = await signed(`system:node:${NODE}`, ['system:nodes'], { serverAuth: true, hosts: [address] });
  const files = { cert: join(s.dataDir, 'corelet.crt'), key: join(s.dataDir, 'corelet.key'), kubeconfig: join(s.dataDir, 'corelet.kubeconfig') };
  writeFileSync(files.cert, serving.certPem);
  writeFileSync(files.key, serving.keyPem);
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  writeFileSync(
    files.kubeconfig,
    JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'node',
      clusters: [{ name: 'c', cluster: { server: s.url, 'certificate-authority-data': b64(readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8')) } }],
      users: [{ name: 'u', user: { 'client-certificate-data': b64(node.certPem), 'client-key-data': b64(node.keyPem) } }],
      contexts: [{ name: 'node', context: { cluster: 'c', user: 'u' } }],
    }),
  );
  corelet = spawn(
    process.execPath,
    [
      '--import', 'tsx', 'src/cmd/corelet.ts', `--hostname-override=${NODE}`, `--address=${address}`, '--port=0', `--kubeconfig=${files.kubeconfig}`,
      `--tls-cert-file=${files.cert}`, `--tls-private-key-file=${files.key}`, `--client-ca-file=${join(s.dataDir, 'pki/ca.crt')}`,
      '--authentication-token-webhook', '--authorization-mode=Webhook', '--anonymous-auth=false', '--v=2',
    ],
    { cwd: ROOT },
  );
  corelet.stderr!.on('data', (d) => (coreletLog += d));
  port = await until('the corelet to serve', () => Number(/serving on https:\/\/[^:]+:(\d+)/.exec(coreletLog)?.[1]) || undefined, 30_000, log);
  // Registered, with the port it serves on in its status.
  await until('the Node with its daemon port', async () => {
    const n = await s.request('GET', `/api/v1/nodes/${NODE}`);
    return n.status === 200 && n.json().status?.daemonEndpoints?.kubeletEndpoint?.Port === port ? true : undefined;
  }, 30_000, log);
});

after(async () => {
  await stopProcess(corelet);
  await s.cleanup();
});

describe('corelet authentication and authorization', () => {
  it('the admin reaches /stats/summary through the API server node proxy (kubectl get --raw)', { skip: !ip && 'no non-loopback IPv4 address: the node proxy never dials loopback' }, async () => {
    const r = await s.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/stats/summary`]);
    assert.equal(r.code, 0, `${r.stderr}\n${coreletLog}`);
    assert.equal(JSON.parse(r.stdout).node.nodeName, NODE);
    const h = await s.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`]);
    assert.equal(h.code, 0, h.stderr);
    assert.equal(h.stdout, 'ok');
  });

  it('a user without nodes/proxy is refused by the API server before the corelet is asked', { skip: !ip && 'no non-loopback IPv4 address' }, async () => {
    const carol = await signed('carol', ['team'], { clientAuth: true });
    const r = await asUser(carol, 'GET', `/api/v1/nodes/${NODE}/proxy/stats/summary`);
    assert.equal(r.status, 403);
    assert.equal(r.body.message, `nodes "${NODE}" is forbidden: User "carol" cannot get resource "nodes/proxy" in API group "" at the cluster scope`);
  });

  it('a client certificate is authenticated; the SubjectAccessReview decides (nodes/stats, then nodes/pods or nodes/proxy)', async () => {
    const carol = await signed('carol', ['team'], { clientAuth: true });
    const denied = await direct('/stats/summary', { id: carol });
    assert.equal(denied.status, 403);
    assert.equal(denied.body, 'Forbidden (user=carol, verb=get, resource=nodes, subresource(s)=[stats])\n');
    assert.match(denied.type, /^text\/plain/);
    const dave = await signed('dave', [], { clientAuth: true });
    const ok = await direct('/stats/summary', { id: dave });
    assert.equal(ok.status, 200, ok.body);
    assert.equal(JSON.parse(ok.body).node.nodeName, NODE);
    const pods = await direct('/pods', { id: dave });
    assert.equal(pods.status, 403);
    assert.equal(pods.body, 'Forbidden (user=dave, verb=get, resource=nodes, subresource(s)=[pods proxy])\n');
    const post = await direct('/stats/summary', { id: dave, method: 'POST' });
    assert.equal(post.status, 403);
    assert.equal(post.body, 'Forbidden (user=dave, verb=create, resource=nodes, subresource(s)=[stats])\n');
    // A certificate of another authority is a refused credential: 401, not anonymous.
    const { certPem, key } = await issueCertificate({ subject: [{ CN: ['mallory'] }], validDays: 1, clientAuth: true });
    const foreign = await direct('/healthz', { id: { certPem, keyPem: key.pem } });
    assert.equal(foreign.status, 401);
  });

  it('a request without credentials is 401 with --anonymous-auth=false, /healthz included', async () => {
    for (const path of ['/stats/summary', '/healthz', '/nothing-here']) {
      const r = await direct(path);
      assert.equal(r.status, 401, path);
      assert.equal(r.body, 'Unauthorized');
    }
  });

  it('a bearer token the API server knows passes TokenReview; an unknown one is 401', async () => {
    const ok = await direct('/stats/summary', { token: TOKEN });
    assert.equal(ok.status, 200, `${ok.body}\n${coreletLog}`);
    const pods = await direct('/pods', { token: TOKEN });
    assert.equal(pods.status, 403);
    assert.equal(pods.body, 'Forbidden (user=tina, verb=get, resource=nodes, subresource(s)=[pods proxy])\n');
    const bad = await direct('/stats/summary', { token: 'not-a-token' });
    assert.equal(bad.status, 401);
    assert.equal(bad.body, 'Unauthorized');
  });
});

describe('TokenReview (authentication.k8s.io/v1)', () => {
  it('names the user of a token, refuses an unknown one, and needs a token', async () => {
    const r = await s.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: TOKEN } });
    assert.equal(r.status, 201, r.body);
    const review = r.json();
    assert.equal(review.kind, 'TokenReview');
    assert.deepEqual(review.status, { authenticated: true, user: { username: 'tina', uid: 'uid-tina', groups: ['readers', 'system:authenticated'] } });
    const unknown = (await s.request('POST', '/apis/authentication.cluster.io/v1/tokenreviews', { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenReview', spec: { token: 'nope' } })).json();
    // authenticated: false is left out, as Go's omitempty leaves it out.
    assert.deepEqual(unknown.status, { user: {}, error: 'invalid bearer token' });
    const none = await s.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} });
    assert.equal(none.status, 400);
    assert.equal(none.json().message, 'token is required for TokenReview in authentication');
    // Discovery lists it create-only; a user without a grant may not ask (system:auth-delegator grants it).
    const d = (await s.request('GET', '/apis/authentication.k8s.io/v1')).json().resources.find((x: any) => x.name === 'tokenreviews');
    assert.deepEqual(d.verbs, ['create']);
    const carol = await signed('carol', ['team'], { clientAuth: true });
    const refused = await asUser(carol, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: TOKEN } });
    assert.equal(refused.status, 403);
    const roles = (await s.kubectl(['get', 'clusterroles', 'system:auth-delegator', 'system:kubelet-api-admin', '-o', 'name'])).stdout.trim().split('\n');
    assert.deepEqual(roles, ['clusterrole.rbac.authorization.k8s.io/system:auth-delegator', 'clusterrole.rbac.authorization.k8s.io/system:kubelet-api-admin']);
  });

  it('OpenAPI lists the TokenReview create and the Node status and proxy paths', async () => {
    const v2 = (await s.request('GET', '/openapi/v2', undefined, { accept: 'application/json' })).json();
    for (const path of ['/apis/authentication.k8s.io/v1/tokenreviews', '/api/v1/nodes/{name}/status', '/api/v1/nodes/{name}/proxy', '/api/v1/nodes/{name}/proxy/{path}']) assert.ok(v2.paths[path], path);
    assert.equal(v2.paths['/apis/authentication.k8s.io/v1/tokenreviews'].post.operationId, 'createAuthenticationV1TokenReview');
    const index = (await s.request('GET', '/openapi/v3')).json();
    const core = (await s.request('GET', index.paths['api/v1'].serverRelativeURL)).json();
    assert.equal(core.paths['/api/v1/nodes/{name}/proxy'].get.operationId, 'connectCoreV1GetNodeProxy');
    // kubectl reads the protobuf document for validation: a create still validates.
    const explain = await s.kubectl(['explain', 'tokenreviews.spec']);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /token\s+<string>/);
  });
});
