/**
 * Node TLS bootstrap end to end: a real API server (Node authorizer, RBAC, the CSR approver and signer) and a real
 * corelet started with only the bootstrap kubeconfig the server wrote. The corelet obtains its client and serving
 * certificates through CertificateSigningRequests, registers its Node, and the API server's node proxy reaches it
 * checking its serving certificate against the cluster CA (no insecure skip): `kubectl get --raw
 * /api/v1/nodes/<node>/proxy/stats/summary` returns the real summary of a CPU-burning pod. A restart reuses the
 * stored certificates. Bad CSRs get upstream's Status errors. The corelet part is skipped (with the reason) where
 * the machine has no writable cgroup v2 hierarchy or no non-loopback IPv4 address (the node proxy refuses loopback).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, release, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeCSR } from '../src/corelet/certificates.ts';
import { discoverCgroups } from '../src/corelet/cgroups.ts';
import { TestServer } from './helpers/server.ts';
import { stopProcess } from './helpers/process.ts';
import { until } from './helpers/until.ts';

const ROOT = resolve(import.meta.dirname, '..');
const NODE = 'boot-node';
const env = discoverCgroups();
const ip = (() => {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
})();
const skipCorelet = !env.v2 ? 'no writable cgroup v2 hierarchy on this machine: the corelet cannot run pods here' : !ip ? 'no non-loopback IPv4 address: the node proxy never dials loopback' : false;


const s = new TestServer();
before(() => s.start(['--authorization-mode=Node,RBAC', '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname']));
after(() => s.cleanup());

const csrBody = async (name: string, over: Record<string, unknown> = {}) => {
  const { csrPem } = await makeCSR({ signerName: 'example.com/test', commonName: 'someone', organizations: [], usages: ['client auth'] });
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'example.com/test', usages: ['client auth'], ...over } };
};

describe('CertificateSigningRequests', () => {
  it('refuses bad requests with 422 and the field', async () => {
    const r = await s.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', await csrBody('bad', { request: Buffer.from('invalid data').toString('base64'), usages: [] }));
    assert.equal(r.status, 422, r.body);
    const st = r.json();
    assert.equal(st.reason, 'Invalid');
    assert.equal(st.details.kind, 'CertificateSigningRequest');
    assert.equal(st.details.group, 'certificates.k8s.io');
    assert.deepEqual(st.details.causes.map((c: any) => c.field), ['spec.request', 'spec.usages']);
    assert.match(st.message, /spec\.request: Invalid value: .*PEM block type must be CERTIFICATE REQUEST, spec\.usages: Required value: usages must be provided\]$/);
    const signer = await s.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', await csrBody('bad2', { signerName: 'nodomain' }));
    assert.equal(signer.status, 422);
    assert.equal(signer.json().details.causes[0].field, 'spec.signerName');
  });

  it('records the requester, approves through /approval (kubectl certificate approve) and keeps approval to those allowed', async () => {
    const r = await s.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', await csrBody('manual', { username: 'forged', groups: ['system:masters'] }));
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json().spec.username, 'admin', 'the requester is the authenticated user, never the body');
    assert.deepEqual(r.json().spec.groups, ['system:masters', 'system:authenticated']);
    const boot = join(s.dataDir, 'bootstrap.kubeconfig');
    const denied = await s.kubectl(['--kubeconfig', boot, 'certificate', 'approve', 'manual']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /certificatesigningrequests\.certificates\.k8s\.io "manual" is forbidden: (User "system:bootstrap:corelet" cannot|user not permitted)/);
    const ok = await s.kubectl(['certificate', 'approve', 'manual']);
    assert.equal(ok.code, 0, ok.stderr);
    const get = await s.kubectl(['get', 'csr', 'manual']);
    assert.match(get.stdout, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/m);
    assert.match(get.stdout, /^manual\s+\S+\s+example\.com\/test\s+admin\s+<none>\s+Approved$/m, 'no signer for example.com: approved, never issued');
    // The main resource never changes status.
    const cur = (await s.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/manual')).json();
    cur.status.conditions = [];
    assert.equal((await s.request('PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/manual', cur)).json().status.conditions.length, 1);
  });
});

describe('corelet TLS bootstrap', { skip: skipCorelet }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'corelet-bootstrap-'));
  const cgroupRoot = `corelet-bootstrap-${process.pid}`;
  let agent: ChildProcess | undefined;
  let stderr = '';

  const startCorelet = async () => {
    stderr = '';
    agent = spawn(process.execPath, [
      '--import', 'tsx', 'src/cmd/corelet.ts',
      `--bootstrap-kubeconfig=${join(s.dataDir, 'bootstrap.kubeconfig')}`, `--kubeconfig=${join(dir, 'corelet.kubeconfig')}`, `--cert-dir=${join(dir, 'pki')}`,
      '--rotate-server-certificates', `--address=${ip}`, '--port=0', `--hostname-override=${NODE}`, `--cgroup-root=${cgroupRoot}`,
      `--pod-manifest-path=${join(dir, 'pods')}`, '--v=2',
    ], { cwd: ROOT });
    agent.stderr!.on('data', (d) => (stderr += d));
    await until('the corelet to serve', () => /serving on https:\/\//.test(stderr) || (agent!.exitCode !== null && Promise.reject(new Error(stderr))), 60_000);
  };
  const stopCorelet = () => stopProcess(agent);
  const csrs = async () => (await s.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests')).json().items.filter((c: any) => c.metadata.name.startsWith('node-csr-'));

  before(async () => {
    mkdirSync(join(dir, 'pods'));
    writeFileSync(join(dir, 'pods', 'burn.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: burn}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n  - name: main\n    command: [sh, -c, "while :; do :; done"]\n    resources: {limits: {cpu: 300m, memory: 32Mi}}\n');
    await startCorelet();
  });
  after(async () => {
    if (agent && agent.exitCode === null) agent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('obtains its client and serving certificates through CSRs the server approves and signs', async () => {
    const k = await s.kubectl(['get', 'csr']);
    assert.equal(k.code, 0, k.stderr);
    assert.match(k.stdout, /^node-csr-\S+\s+\S+\s+kubernetes\.io\/kube-apiserver-client-kubelet\s+system:bootstrap:corelet\s+<none>\s+Approved,Issued$/m);
    assert.match(k.stdout, new RegExp(`^node-csr-\\S+\\s+\\S+\\s+kubernetes\\.io/kubelet-serving\\s+system:node:${NODE}\\s+<none>\\s+Approved,Issued$`, 'm'));
    const list = await csrs();
    assert.equal(list.length, 2);
    for (const c of list) assert.equal(c.status.conditions[0].reason, 'AutoApproved');
    const ca = new X509Certificate(readFileSync(join(s.dataDir, 'pki/ca.crt')));
    const serving = new X509Certificate(readFileSync(join(dir, 'pki/corelet-server-current.pem')));
    assert.ok(serving.checkIssued(ca) && serving.verify(ca.publicKey), 'signed by the cluster CA');
    assert.equal(serving.subject, `O=system:nodes\nCN=system:node:${NODE}`);
    assert.equal(serving.subjectAltName, `DNS:${NODE}, IP Address:${ip}`);
    const client = new X509Certificate(readFileSync(join(dir, 'pki/corelet-client-current.pem')));
    assert.ok(client.checkIssued(ca));
    assert.equal(client.subject, `O=system:nodes\nCN=system:node:${NODE}`);
    assert.match(readFileSync(join(dir, 'corelet.kubeconfig'), 'utf8'), /client-certificate: .*corelet-client-current\.pem/);
  });

  it('registers its Node with its own identity', async () => {
    const out = await until('the node Ready', async () => {
      const k = await s.kubectl(['get', 'nodes', '-o', 'wide']);
      return new RegExp(`^${NODE}\\s+Ready\\s`, 'm').test(k.stdout) && k.stdout;
    });
    assert.match(out, new RegExp(`^${NODE}\\s+Ready\\s+<none>\\s+\\S+\\s+\\S*\\s+${ip!.replace(/\./g, '\\.')}\\s`, 'm'));
    // VERSION, KERNEL-VERSION and CONTAINER-RUNTIME come from the Node's nodeInfo, read from this machine.
    const row = out.split('\n').find((l) => l.startsWith(`${NODE} `))!;
    assert.ok(row.includes(release()), row);
    assert.match(row, /\sv1\.\d+\.\d+\S*\s/);
    assert.match(row, /corelet:\/\/v1\./);
    const k = await s.kubectl(['events', '-n', 'default']);
    assert.match(k.stdout, new RegExp(`Normal\\s+Starting\\s+Node/${NODE}\\s+Starting corelet\\.`));
  });

  it('serves the real summary through the node proxy, which verifies it against the cluster CA', async () => {
    const summary = async () => {
      const k = await s.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/stats/summary`]);
      if (k.code !== 0) return undefined;
      const sum = JSON.parse(k.stdout);
      const pod = sum.pods.find((p: any) => p.podRef.name === `burn-${NODE}`);
      return pod?.containers?.[0]?.cpu?.usageCoreNanoSeconds !== undefined && { sum, pod };
    };
    const first = await until('the burner in the proxied summary', summary);
    const second = await until('usageCoreNanoSeconds to rise', async () => {
      const n = await summary();
      return n && n.pod.cpu.usageCoreNanoSeconds > first.pod.cpu.usageCoreNanoSeconds && n;
    });
    assert.equal(second.sum.node.nodeName, NODE);
    assert.ok(second.pod.containers[0].cpu.usageCoreNanoSeconds > 0);
    if (existsSync('/proc/pressure/cpu')) {
      assert.deepEqual(Object.keys(second.sum.node.cpu.psi).sort(), ['full', 'some']);
      assert.equal(typeof second.pod.cpu.psi.some.total, 'number');
    }
  });

  it('a restart reuses the stored certificates: no new CSR', async () => {
    await stopCorelet();
    await startCorelet();
    assert.match(stderr, /serving certificate reused from /);
    assert.doesNotMatch(stderr, /CertificateSigningRequest .* filed/);
    assert.equal((await csrs()).length, 2);
    const k = await until('the proxy after the restart', async () => {
      const r = await s.kubectl(['get', '--raw', `/api/v1/nodes/${NODE}/proxy/healthz`]);
      return r.code === 0 && r;
    });
    assert.equal(k.stdout, 'ok');
    await stopCorelet();
  });
});
