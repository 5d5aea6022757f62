/**
 * End-to-end Nodes (core/v1): kubectl creates, lists (Table, -o wide), reads and watches Nodes; the status
 * subresource writes status only and the main resource never does; validation answers with upstream's texts;
 * discovery lists nodes, nodes/proxy, nodes/status; the node proxy reaches a node agent over TLS; a node identity (Node authorizer, NodeRestriction) writes only its own Node.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse as parseYAML } from 'yaml';
import { importSigningKey, issueCertificate } from '../src/cmd/x509gen.ts';
import { TestServer } from './helpers/server.ts';

const s = new TestServer();
before(async () => {
  // upstream's usual chain: the Node authorizer before RBAC.
  await s.start(['--authorization-mode=Node,RBAC']);
});
after(async () => {
  await s.cleanup();
});

function nodeManifest(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': name } },
    spec: { podCIDR: '10.244.0.0/24' },
    status: {
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'corelet is posting ready status' }],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'm', systemUUID: 'u', bootID: 'b', kernelVersion: '6.1.0-13-amd64', osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.0', kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
      },
    },
    ...extra,
  };
}

function manifestFile(name: string, obj: Record<string, unknown>): string {
  const f = join(s.dataDir, `${name}.json`);
  writeFileSync(f, JSON.stringify(obj));
  return f;
}

for (const version of ['1.27', '1.33']) {
  describe(`kubectl ${version}`, () => {
    const name = `n-${version.replace('.', '-')}`;
    it('creates a Node with its status and lists it as upstream prints nodes', async () => {
      const c = await s.kubectl(['create', '-f', manifestFile(name, nodeManifest(name))], { version });
      assert.equal(c.code, 0, c.stderr);
      const g = await s.kubectl(['get', 'nodes', name], { version });
      assert.equal(g.code, 0, g.stderr);
      const lines = g.stdout.trim().split('\n');
      assert.match(lines[0]!, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
      assert.match(lines[1]!, new RegExp(`^${name}\\s+Ready\\s+control-plane\\s+\\S+\\s+v1\\.33\\.0$`));
      const w = await s.kubectl(['get', 'no', name, '-o', 'wide'], { version });
      assert.equal(w.code, 0, w.stderr);
      const wl = w.stdout.trim().split('\n');
      assert.match(wl[0]!, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\s+INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE\s+KERNEL-VERSION\s+CONTAINER-RUNTIME$/);
      assert.match(wl[1]!, /10\.0\.0\.5\s+<none>\s+Debian GNU\/Linux 12 \(bookworm\)\s+6\.1\.0-13-amd64\s+containerd:\/\/1\.7\.0$/);
      const y = await s.kubectl(['get', 'node', name, '-o', 'yaml'], { version });
      assert.equal(y.code, 0, y.stderr);
      const obj = parseYAML(y.stdout);
      assert.equal(obj.kind, 'Node');
      assert.deepEqual(obj.spec, { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'] });
      assert.equal(obj.status.daemonEndpoints.kubeletEndpoint.Port, 10250);
    });

    it('cordoning (spec) keeps status; the status subresource changes status only', async () => {
      const c = await s.kubectl(['patch', 'node', name, '--type=merge', '-p', '{"spec":{"unschedulable":true},"status":{"phase":"Ignored"}}'], { version });
      assert.equal(c.code, 0, c.stderr);
      const g = await s.kubectl(['get', 'nodes', name, '--no-headers'], { version });
      assert.match(g.stdout, /Ready,SchedulingDisabled/);
      let n = (await s.request('GET', `/api/v1/nodes/${name}`)).json();
      assert.equal(n.status.phase, undefined);
      const p = await s.kubectl(
        ['patch', 'node', name, '--subresource=status', '--type=merge', '-p', '{"spec":{"unschedulable":false},"status":{"conditions":[{"type":"Ready","status":"False"}]}}'],
        { version },
      );
      assert.equal(p.code, 0, p.stderr);
      n = (await s.request('GET', `/api/v1/nodes/${name}/status`)).json();
      assert.equal(n.spec.unschedulable, true);
      assert.equal(n.status.conditions.find((x: any) => x.type === 'Ready').status, 'False');
      const g2 = await s.kubectl(['get', 'nodes', name, '--no-headers'], { version });
      assert.match(g2.stdout, /NotReady,SchedulingDisabled/);
    });

    it('deletes a Node', async () => {
      const d = await s.kubectl(['delete', 'node', name], { version });
      assert.equal(d.code, 0, d.stderr);
      assert.equal((await s.request('GET', `/api/v1/nodes/${name}`)).status, 404);
    });
  });
}

describe('API', () => {
  it('discovery lists nodes (no) and nodes/status', async () => {
    const r = (await s.request('GET', '/api/v1')).json();
    const nodes = r.resources.find((x: any) => x.name === 'nodes');
    assert.deepEqual(nodes.shortNames, ['no']);
    assert.equal(nodes.namespaced, false);
    assert.equal(nodes.kind, 'Node');
    const status = r.resources.find((x: any) => x.name === 'nodes/status');
    assert.deepEqual(status, { name: 'nodes/status', singularName: '', namespaced: false, kind: 'Node', verbs: ['get', 'patch', 'update'] });
  });

  it('a Node without status reads as Unknown with <none> roles; PUT of status via the main resource is ignored', async () => {
    const c = await s.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
    assert.equal(c.status, 201, c.body);
    const t = await s.request('GET', '/api/v1/nodes/bare', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const cells = t.json().rows[0].cells;
    assert.deepEqual([cells[1], cells[2], cells[4], cells[5], cells[7]], ['Unknown', '<none>', '', '<none>', '<unknown>']);
    const cur = c.json() as Record<string, unknown>;
    const u = await s.request('PUT', '/api/v1/nodes/bare', { ...cur, status: { phase: 'Running' } });
    assert.equal(u.status, 200, u.body);
    assert.equal(u.json().status.phase, undefined);
    const us = await s.request('PUT', '/api/v1/nodes/bare/status', { ...u.json<Record<string, unknown>>(), spec: { unschedulable: true }, status: { phase: 'Running' } });
    assert.equal(us.status, 200, us.body);
    assert.equal(us.json().status.phase, 'Running');
    assert.deepEqual(us.json().spec, {});
  });

  it('validates names, taints and podCIDRs with upstream texts', async () => {
    const bad = await s.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'Bad_Name' } });
    assert.equal(bad.status, 422);
    assert.match(bad.json().message, /Node "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
    const taint = await s.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node', metadata: { name: 't1' },
      spec: { taints: [{ key: 'a', effect: 'Sometimes' }], podCIDRs: ['10.0.0.0/33'] },
    });
    assert.equal(taint.status, 422);
    assert.match(taint.json().message, /metadata.taints\[0\].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"/);
    assert.match(taint.json().message, /spec.podCIDRs\[0\]: Invalid value: "10.0.0.0\/33": must be a valid CIDR value/);
    const created = await s.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'c1' }, spec: { podCIDR: '10.1.0.0/24', providerID: 'x://1' } });
    assert.equal(created.status, 201, created.body);
    const ch = await s.request('PATCH', '/api/v1/nodes/c1', { spec: { podCIDR: '10.2.0.0/24', podCIDRs: ['10.2.0.0/24'], providerID: 'x://2' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(ch.status, 422);
    assert.match(ch.json().message, /spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid/);
    assert.match(ch.json().message, /spec.providerID: Forbidden: node updates may not change providerID except from "" to valid/);
    assert.equal((await s.request('GET', '/api/v1/nodes/c1/nothing')).status, 404);
  });

  it('watches Nodes and serves apply and strategic merge on status', async () => {
    const w = s.watch('/api/v1/nodes?watch=1&fieldSelector=metadata.name%3Dw1');
    assert.equal(await w.status, 200);
    const a = await s.request('PATCH', '/api/v1/nodes/w1?fieldManager=agent', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'w1' } }, { 'content-type': 'application/apply-patch+yaml' });
    assert.equal(a.status, 201, a.body);
    const sm = await s.request(
      'PATCH',
      '/api/v1/nodes/w1/status',
      { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'MemoryPressure', status: 'False' }] } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(sm.status, 200, sm.body);
    const sm2 = await s.request('PATCH', '/api/v1/nodes/w1/status', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, { 'content-type': 'application/strategic-merge-patch+json' });
    assert.deepEqual(sm2.json().status.conditions.map((c: any) => `${c.type}=${c.status}`), ['Ready=False', 'MemoryPressure=False']);
    for (let i = 0; i < 100 && w.frames.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    w.stop();
    assert.deepEqual(w.frames.map((f) => f.type), ['ADDED', 'MODIFIED', 'MODIFIED']);
  });
});

interface Identity {
  certPem: string;
  keyPem: string;
}

/** A client certificate signed by the server's CA (CN = user, O = groups), as a node agent's. */
async function identity(cn: string, orgs: string[]): Promise<Identity> {
  const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
  const caKey = await importSigningKey(readFileSync(join(s.dataDir, 'pki/ca.key'), 'utf8'));
  const c = await issueCertificate({ subject: [...orgs.map((o) => ({ O: [o] })), { CN: [cn] }], validDays: 1, clientAuth: true }, { certPem: caPem, key: caKey });
  return { certPem: c.certPem, keyPem: c.key.pem };
}

function call(id: Identity, method: string, path: string, body?: object, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const payload = body ? Buffer.from(JSON.stringify(body)) : undefined;
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: s.port, method, path, cert: id.certPem, key: id.keyPem, rejectUnauthorized: false, headers: payload ? { 'content-type': contentType } : {} },
      (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b ? JSON.parse(b) : undefined }));
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

describe('node identity (Node authorizer and NodeRestriction)', () => {
  const MERGE = 'application/merge-patch+json';
  it('a node registers and updates its own Node and status, and no other', async () => {
    const n1 = await identity('system:node:n1', ['system:nodes']);
    const reg = await call(n1, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/instance-type': 'small' } } });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
    const other = await call(n1, 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    assert.equal(other.status, 403);
    assert.equal(other.body.message, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    assert.equal((await s.request('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } })).status, 201);

    const st = await call(n1, 'PATCH', '/api/v1/nodes/n1/status', { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, MERGE);
    assert.equal(st.status, 200, JSON.stringify(st.body));
    const st2 = await call(n1, 'PATCH', '/api/v1/nodes/n2/status', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }, MERGE);
    assert.equal(st2.status, 403);
    assert.equal(st2.body.message, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    assert.equal((await call(n1, 'PATCH', '/api/v1/nodes/n1', { metadata: { annotations: { a: 'b' } } }, MERGE)).status, 200);
    assert.equal((await call(n1, 'PATCH', '/api/v1/nodes/n2', { metadata: { annotations: { a: 'b' } } }, MERGE)).status, 403);

    const role = await call(n1, 'PATCH', '/api/v1/nodes/n1', { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } }, MERGE);
    assert.equal(role.status, 403);
    assert.equal(role.body.message, 'nodes "n1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane');
    const taint = await call(n1, 'PATCH', '/api/v1/nodes/n1', { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } }, MERGE);
    assert.equal(taint.status, 403);
    assert.equal(taint.body.message, 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
    const setRole = await call(await identity('system:node:n3', ['system:nodes']), 'POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3', labels: { 'node-restriction.kubernetes.io/x': 'y' } } });
    assert.equal(setRole.status, 403);
    assert.equal(setRole.body.message, 'nodes "n3" is forbidden: node "n3" is not allowed to set the following labels: node-restriction.kubernetes.io/x');

    // Reads of every node and watches are allowed; deleting is not a node's to do; Events may be recorded.
    assert.equal((await call(n1, 'GET', '/api/v1/nodes')).status, 200);
    assert.equal((await call(n1, 'GET', '/api/v1/nodes/n2')).status, 200);
    const del = await call(n1, 'DELETE', '/api/v1/nodes/n1');
    assert.equal(del.status, 403);
    assert.match(del.body.message, /^nodes "n1" is forbidden: User "system:node:n1" cannot delete resource "nodes" in API group "" at the cluster scope/);
    const ev = await call(n1, 'POST', '/api/v1/namespaces/default/events', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'n1.started' }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'Starting', message: 'Starting corelet.', type: 'Normal', source: { component: 'corelet', host: 'n1' },
    });
    assert.equal(ev.status, 201, JSON.stringify(ev.body));
  });

  it('a user outside system:nodes, or named as a node without the group, gets nothing from the Node authorizer', async () => {
    const fake = await identity('system:node:n1', ['team']);
    assert.equal((await call(fake, 'GET', '/api/v1/nodes')).status, 403);
    const bare = await identity('system:node:', ['system:nodes']);
    const r = await call(bare, 'GET', '/api/v1/nodes');
    assert.equal(r.status, 403);
    assert.match(r.body.message, /unknown node for user "system:node:"/);
  });
});

/** A non-loopback address of this machine: upstream never proxies to loopback or link-local addresses. */
function externalIPv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return undefined;
}

describe('node proxy', () => {
  const ip = externalIPv4();
  let agent: https.Server;
  let port = 0;
  const seen: { path: string; cn: string; method: string }[] = [];
  before(async () => {
    if (!ip) return;
    // The node agent: a serving certificate from the server's CA, and the API server's client certificate required.
    const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
    const caKey = await importSigningKey(readFileSync(join(s.dataDir, 'pki/ca.key'), 'utf8'));
    const c = await issueCertificate({ subject: [{ CN: ['system:node:p1'] }], validDays: 1, serverAuth: true, hosts: [ip] }, { certPem: caPem, key: caKey });
    agent = https.createServer({ cert: c.certPem, key: c.key.pem, ca: caPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      seen.push({ path: req.url ?? '', cn: String(peer.subject?.CN ?? ''), method: req.method ?? '' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ node: { nodeName: 'p1' }, path: req.url }));
    });
    await new Promise<void>((r) => agent.listen(0, ip, r));
    port = (agent.address() as AddressInfo).port;
    const node = (name: string, address: string, p: number) => ({
      apiVersion: 'v1', kind: 'Node', metadata: { name },
      status: { addresses: [{ type: 'InternalIP', address }], daemonEndpoints: { kubeletEndpoint: { Port: p } } },
    });
    for (const n of [node('p1', ip, port), node('p-down', ip, 1), node('p-local', '127.0.0.1', port), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'p-noaddr' } }]) {
      assert.equal((await s.request('POST', '/api/v1/nodes', n)).status, 201);
    }
  });
  after(() => agent?.close());

  it('kubectl get --raw reaches the node agent with the server client certificate', { skip: !ip && 'no non-loopback IPv4 address' }, async () => {
    for (const version of ['1.27', '1.33']) {
      const r = await s.kubectl(['get', '--raw', '/api/v1/nodes/p1/proxy/stats/summary?only_cpu_and_memory=true'], { version });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { node: { nodeName: 'p1' }, path: '/stats/summary?only_cpu_and_memory=true' });
    }
    assert.equal(seen.at(-1)!.cn, 'admin');
    // `name:port` of the agent's own port is the same location.
    const p = await s.request('POST', `/api/v1/nodes/p1:${port}/proxy/run`, '{}', { 'content-type': 'application/json' });
    assert.equal(p.status, 200, p.body);
    assert.deepEqual(seen.at(-1), { path: '/run', cn: 'admin', method: 'POST' });
  });

  it('answers with upstream Status errors', { skip: !ip && 'no non-loopback IPv4 address' }, async () => {
    const missing = await s.request('GET', '/api/v1/nodes/nope/proxy/healthz');
    assert.equal(missing.status, 404);
    assert.equal(missing.json().message, 'nodes "nope" not found');
    const down = await s.kubectl(['get', '--raw', '/api/v1/nodes/p-down/proxy/healthz']);
    assert.notEqual(down.code, 0);
    assert.match(down.stderr, new RegExp(`Error from server \\(ServiceUnavailable\\): error trying to reach service: dial tcp ${ip!.replace(/\./g, '\\.')}:1: connect: connection refused`));
    const local = await s.request('GET', '/api/v1/nodes/p-local/proxy/healthz');
    assert.equal(local.status, 400);
    assert.equal(local.json().message, 'address not allowed');
    const none = await s.request('GET', '/api/v1/nodes/p-noaddr/proxy/healthz');
    assert.equal(none.status, 500);
    assert.equal(none.json().message, 'no preferred addresses found; known addresses: []');
    const bad = await s.request('GET', '/api/v1/nodes/a:b:c:d/proxy/healthz');
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, 'invalid node request "a:b:c:d"');
  });

  it('is authorized as nodes/proxy', { skip: !ip && 'no non-loopback IPv4 address' }, async () => {
    const user = await identity('carol', ['team']);
    const r = await call(user, 'GET', '/api/v1/nodes/p1/proxy/stats/summary');
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'nodes "p1" is forbidden: User "carol" cannot get resource "nodes/proxy" in API group "" at the cluster scope');
    const d = (await s.request('GET', '/api/v1')).json().resources.find((x: any) => x.name === 'nodes/proxy');
    assert.deepEqual(d, { name: 'nodes/proxy', singularName: '', namespaced: false, kind: 'NodeProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
  });
});
