import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../cmd/x509gen.ts';
import { loadKubeconfig } from '../client/kubeconfig.ts';
import { RestClient } from '../client/rest.ts';
import { registerNode, statusPatch } from './register.ts';

/** A stand-in API server: records each request, answers POST /api/v1/nodes with `createStatus`. */
async function standIn(createStatus: number) {
  const ca = await issueCertificate({ subject: [{ CN: ['test-ca'] }], validDays: 1, ca: true });
  const serving = await issueCertificate({ subject: [{ CN: ['api'] }], validDays: 1, serverAuth: true, hosts: ['127.0.0.1'] }, { certPem: ca.certPem, key: ca.key });
  const seen: Array<{ method: string; url: string; type: string; auth: string; body: any }> = [];
  const server = createServer({ cert: serving.certPem, key: serving.key.pem }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, type: String(req.headers['content-type']), auth: String(req.headers.authorization), body: JSON.parse(body || '{}') });
      res.writeHead(req.method === 'POST' ? createStatus : 200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { ca, server, seen, port: (server.address() as AddressInfo).port };
}

function kubeconfig(dir: string, port: number, caPem: string): string {
  const p = join(dir, 'kubeconfig');
  writeFileSync(join(dir, 'token'), 'secret-token\n');
  writeFileSync(
    p,
    `apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: "https://127.0.0.1:${port}", certificate-authority-data: ${Buffer.from(caPem).toString('base64')}}}]\nusers: [{name: u, user: {tokenFile: token}}]\n`,
  );
  return p;
}

describe('node registration', () => {
  for (const status of [201, 409]) {
    it(`creates the Node (answer ${status}), then patches its status with a Ready heartbeat`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'corelet-reg-'));
      const api = await standIn(status);
      try {
        const path = kubeconfig(dir, api.port, api.ca.certPem);
        assert.equal(loadKubeconfig(path).token, 'secret-token');
        const logs: string[] = [];
        const events: string[] = [];
        const sink = { eventf: (ref: { name: string }, _r: unknown, type: string, reason: string, _a: string, note: string) => events.push(`${ref.name} ${type} ${reason} ${note}`) };
        const reg = registerNode({ client: RestClient.fromKubeconfig(path), nodeName: 'node-a', port: 10250, address: '127.0.0.1', log: (_l, m) => logs.push(m), intervalMs: 50, events: sink });
        await reg.registered;
        reg.stop();
        const create = api.seen.find((r) => r.method === 'POST');
        const patch = api.seen.find((r) => r.method === 'PATCH');
        assert.equal(create!.method, 'POST');
        assert.equal(create!.url, '/api/v1/nodes');
        assert.equal(create!.auth, 'Bearer secret-token');
        assert.equal(create!.body.kind, 'Node');
        assert.equal(create!.body.metadata.name, 'node-a');
        assert.equal(create!.body.metadata.labels['kubernetes.io/hostname'], 'node-a');
        assert.match(create!.body.status.capacity.memory, /^\d+Ki$/);
        assert.equal(patch!.method, 'PATCH');
        assert.equal(patch!.url, '/api/v1/nodes/node-a/status');
        assert.equal(patch!.type, 'application/merge-patch+json');
        const ready = patch!.body.status.conditions[0];
        assert.equal(ready.type, 'Ready');
        assert.equal(ready.status, 'True');
        assert.equal(patch!.body.status.daemonEndpoints.kubeletEndpoint.Port, 10250);
        assert.equal(api.seen.filter((r) => r.method === 'POST').length, 1, 'registered once');
        // The stand-in's Node has no Ready condition: the first Ready status is a transition.
        assert.deepEqual(events, ['node-a Normal NodeReady Node node-a status is now: NodeReady']);
      } finally {
        api.server.close();
        api.server.closeAllConnections();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('a refused registration is logged and retried', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corelet-reg-'));
    const api = await standIn(403);
    try {
      const logs: string[] = [];
      const reg = registerNode({ client: RestClient.fromKubeconfig(kubeconfig(dir, api.port, api.ca.certPem)), nodeName: 'node-b', port: 1, address: '127.0.0.1', log: (_l, m) => logs.push(m), intervalMs: 20 });
      while (api.seen.length < 2) await new Promise((r) => setTimeout(r, 10));
      reg.stop();
      assert.match(logs[0]!, /^registering node node-b: 403/);
      assert.ok(api.seen.every((r) => r.method === 'POST'));
    } finally {
      api.server.close();
      api.server.closeAllConnections();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("posts NotReady with kubelet's reason and the runtime state's error while the PLEG is unhealthy", () => {
    const ready = statusPatch('n', '10.0.0.1', 10250, '2026-01-01T00:00:00Z').status.conditions[0];
    assert.deepEqual([ready.status, ready.reason, ready.message], ['True', 'KubeletReady', 'corelet is posting ready status']);
    const msg = 'PLEG is not healthy: pleg was last seen active 3m1s ago; threshold is 3m0s';
    const c = statusPatch('n', '10.0.0.1', 10250, '2026-01-01T00:00:00Z', msg).status.conditions[0];
    assert.deepEqual([c.type, c.status, c.reason, c.message, c.lastTransitionTime], ['Ready', 'False', 'KubeletNotReady', msg, '2026-01-01T00:00:00Z']);
  });
});
