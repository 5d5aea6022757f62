/** The corelet's certificate store: the combined PEM files and their link, and when a stored certificate is reused. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate } from '../cmd/x509gen.ts';
import { kubeconfigUsable, loadPair, reusable, storePair } from './certificates.ts';

describe('corelet certificate store', () => {
  it('stores certificate and key in one 0600 file behind <prefix>-current.pem, and loads it back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corelet-certs-'));
    try {
      const c = await issueCertificate({ subject: [{ CN: ['system:node:n1'] }], validDays: 10, serverAuth: true, hosts: ['n1', '10.0.0.5'] });
      const current = storePair(join(dir, 'pki'), 'corelet-server', { certPem: c.certPem, keyPem: c.key.pem });
      assert.match(readlinkSync(current), /corelet-server-\d{8}T\d{6}\.pem$/);
      assert.equal(statSync(readlinkSync(current)).mode & 0o777, 0o600);
      const back = loadPair(current)!;
      assert.equal(back.certPem.trim(), c.certPem.trim());
      assert.ok(reusable(back.cert, Date.now(), ['n1', '10.0.0.5']));
      assert.equal(reusable(back.cert, Date.now(), ['n2']), false, 'another name: not reused');
      // Past 80 % of its lifetime (10 days and the 5-minute back-dating): renewed, not reused.
      assert.equal(reusable(back.cert, Date.now() + 8.5 * 86_400_000), false);
      // A key that does not match the certificate is no pair.
      const other = await issueCertificate({ subject: [{ CN: ['x'] }], validDays: 1 });
      writeFileSync(join(dir, 'mixed.pem'), c.certPem + other.key.pem);
      assert.equal(loadPair(join(dir, 'mixed.pem')), undefined);
      assert.equal(loadPair(join(dir, 'missing.pem')), undefined);
      assert.equal(kubeconfigUsable(join(dir, 'missing.kubeconfig')), false);
      assert.ok(new X509Certificate(back.certPem));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
