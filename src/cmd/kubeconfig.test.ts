import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { writeAdminKubeconfig } from './kubeconfig.ts';

test('writeAdminKubeconfig writes a kubectl-readable config with embedded credentials, mode 0600', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-'));
  try {
    const path = join(dir, 'nested', 'admin.kubeconfig');
    const opts = { server: 'https://127.0.0.1:6443', caPem: 'CA PEM\n', certPem: 'CERT PEM\n', keyPem: 'KEY PEM\n'.repeat(40) };
    writeAdminKubeconfig(path, opts);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const cfg = parse(readFileSync(path, 'utf8'));
    assert.equal(cfg.apiVersion, 'v1');
    assert.equal(cfg.kind, 'Config');
    assert.equal(cfg['current-context'], 'core-apiserver');
    assert.deepEqual(cfg.contexts, [{ name: 'core-apiserver', context: { cluster: 'core-apiserver', user: 'admin' } }]);
    assert.equal(cfg.clusters[0].name, 'core-apiserver');
    assert.equal(cfg.clusters[0].cluster.server, opts.server);
    const decode = (s: string) => Buffer.from(s, 'base64').toString();
    assert.equal(decode(cfg.clusters[0].cluster['certificate-authority-data']), opts.caPem);
    assert.equal(cfg.users[0].name, 'admin');
    assert.equal(decode(cfg.users[0].user['client-certificate-data']), opts.certPem);
    assert.equal(decode(cfg.users[0].user['client-key-data']), opts.keyPem);
    // Rewriting replaces the file and keeps the mode.
    writeAdminKubeconfig(path, { ...opts, server: 'https://[::1]:7443' });
    assert.equal(parse(readFileSync(path, 'utf8')).clusters[0].cluster.server, 'https://[::1]:7443');
    assert.equal(statSync(path).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
