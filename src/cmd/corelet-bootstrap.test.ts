/** The corelet's TLS bootstrap flags: what they need, and the start-up errors that name them. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCoreletFlags } from './corelet.ts';
import { defaultNodeIP } from './corelet-bootstrap.ts';

describe('corelet bootstrap flags', () => {
  it('defaults: no bootstrap, a relative cert dir, no rotation; the node IP is the specific serving address', () => {
    const o = parseCoreletFlags(['--hostname-override=n1']);
    assert.deepEqual(o.bootstrap, { bootstrapKubeconfig: '', certDir: resolve('data/corelet/pki'), rotateServerCertificates: false, nodeIP: '127.0.0.1' });
    assert.equal(parseCoreletFlags(['--hostname-override=n1', '--address=10.1.2.3']).bootstrap.nodeIP, '10.1.2.3');
    assert.notEqual(defaultNodeIP('0.0.0.0'), '0.0.0.0');
  });

  it('names the flag at fault', () => {
    const dir = mkdtempSync(join(tmpdir(), 'corelet-flags-'));
    try {
      const boot = join(dir, 'bootstrap.kubeconfig');
      writeFileSync(boot, 'apiVersion: v1\n');
      const missing = join(dir, 'none.kubeconfig');
      assert.throws(() => parseCoreletFlags(['--bootstrap-kubeconfig', missing, '--kubeconfig', join(dir, 'k')]), { message: `--bootstrap-kubeconfig: ${missing}: no such file` });
      assert.throws(() => parseCoreletFlags([`--bootstrap-kubeconfig=${boot}`]), /^Error: --bootstrap-kubeconfig needs --kubeconfig|--bootstrap-kubeconfig needs --kubeconfig/);
      assert.throws(() => parseCoreletFlags([`--kubeconfig=${missing}`]), { message: `--kubeconfig: ${missing}: no such file` });
      assert.throws(() => parseCoreletFlags(['--rotate-server-certificates']), /--rotate-server-certificates needs --kubeconfig/);
      assert.throws(() => parseCoreletFlags(['--node-ip=nope']), { message: '--node-ip: invalid IP address "nope"' });
      // A kubeconfig that does not exist yet is fine with a bootstrap kubeconfig: it is written.
      const o = parseCoreletFlags([`--bootstrap-kubeconfig=${boot}`, `--kubeconfig=${missing}`, '--rotate-server-certificates', '--cert-dir=/var/lib/corelet/pki']);
      assert.equal(o.bootstrap.certDir, '/var/lib/corelet/pki');
      assert.equal(o.bootstrap.rotateServerCertificates, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
