/** End-to-end: flags, restart on the same data dir, SIGTERM, and event expiry. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TestServer, sampleEvent } from './helpers/server.ts';

const BASE = '/apis/events.cluster.io/v1';

function runCli(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cmd/core-apiserver.ts'), ...args], { encoding: 'utf8', timeout: 30_000 });
}

describe('command line', () => {
  it('rejects a bad flag or value with one line and exit code 1', () => {
    const unknown = runCli(['--no-such-flag']);
    assert.equal(unknown.status, 1);
    assert.equal(unknown.stderr.trim().split('\n').length, 1);
    assert.match(unknown.stderr, /unknown flag: --no-such-flag/);
    const badPort = runCli(['--secure-port=abc']);
    assert.equal(badPort.status, 1);
    assert.match(badPort.stderr, /invalid argument "abc" for "--secure-port" flag/);
    const badTTL = runCli(['--event-ttl', 'forever']);
    assert.equal(badTTL.status, 1);
    assert.equal(badTTL.stderr.trim().split('\n').length, 1);
  });

  it('prints help listing the flags', () => {
    const help = runCli(['--help']);
    assert.equal(help.status, 0);
    for (const f of ['--data-dir', '--bind-address', '--secure-port', '--tls-cert-file', '--tls-private-key-file', '--client-ca-file', '--event-ttl', '--storage-backend', '--shutdown-delay-duration']) {
      assert.ok(help.stdout.includes(f), f);
    }
  });
});

describe('lifecycle', () => {
  it('generates credentials once, keeps data across a SIGTERM restart, and exits 0', async () => {
    const s = new TestServer();
    try {
      await s.start(['-v=3']);
      for (const f of ['pki/ca.key', 'pki/apiserver.key', 'pki/admin.key', 'admin.kubeconfig']) {
        assert.equal(statSync(join(s.dataDir, f)).mode & 0o777, 0o600, f);
      }
      const caBefore = statSync(join(s.dataDir, 'pki/ca.crt')).mtimeMs;
      const created: string[] = [];
      await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const r = await s.request('POST', `${BASE}/namespaces/life/events`, sampleEvent(`p${i}`, 'life'));
          assert.equal(r.status, 201);
          created.push(r.json().metadata.resourceVersion);
        }),
      );
      const w = s.watch(`${BASE}/namespaces/life/events?watch=1`);
      assert.equal(await w.status, 200);
      assert.match(s.stderr, /"HTTP" verb="POST"/);
      const code = await s.stop('SIGTERM');
      assert.equal(code, 0);
      await w.closed;
      assert.match(s.stderr, /Shutdown complete/);

      await s.start();
      assert.equal(statSync(join(s.dataDir, 'pki/ca.crt')).mtimeMs, caBefore);
      const list = (await s.request('GET', `${BASE}/namespaces/life/events`)).json();
      assert.equal(list.items.length, 50);
      assert.ok(Number(list.metadata.resourceVersion) >= Math.max(...created.map(Number)));
      const r = (await s.request('POST', `${BASE}/namespaces/life/events`, sampleEvent('after', 'life'))).json();
      assert.ok(Number(r.metadata.resourceVersion) > Number(list.metadata.resourceVersion));
    } finally {
      await s.cleanup();
    }
  });

  it('expires events --event-ttl after their last write; watchers get DELETED', async () => {
    const s = new TestServer();
    try {
      await s.start(['--event-ttl=2s']);
      const w = s.watch(`${BASE}/namespaces/ttl/events?watch=1`);
      assert.equal(await w.status, 200);
      await s.request('POST', `${BASE}/namespaces/ttl/events`, sampleEvent('short', 'ttl'));
      assert.equal((await s.request('GET', `${BASE}/namespaces/ttl/events/short`)).status, 200);
      const deadline = Date.now() + 8000;
      while (!w.frames.some((f) => f.type === 'DELETED') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      w.stop();
      assert.deepEqual(w.frames.map((f) => f.type), ['ADDED', 'DELETED']);
      assert.equal((await s.request('GET', `${BASE}/namespaces/ttl/events/short`)).status, 404);
    } finally {
      await s.cleanup();
    }
  });
});
