/** End-to-end: client-certificate authentication and the system:masters-only authorization of this stage. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { importSigningKey, issueCertificate } from '../src/cmd/x509gen.ts';
import { TestServer } from './helpers/server.ts';

const s = new TestServer();
before(async () => {
  await s.start();
});
after(async () => {
  await s.cleanup();
});

function get(path: string, cert: { certPem: string; keyPem: string }): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port: s.port, path, cert: cert.certPem, key: cert.keyPem, rejectUnauthorized: false }, (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(b) }));
      })
      .on('error', reject);
  });
}

describe('authentication and authorization', () => {
  it('gives 403 with the upstream message to an identity outside system:masters', async () => {
    const caPem = readFileSync(join(s.dataDir, 'pki/ca.crt'), 'utf8');
    const caKey = await importSigningKey(readFileSync(join(s.dataDir, 'pki/ca.key'), 'utf8'));
    const alice = await issueCertificate({ subject: [{ O: ['dev'] }, { CN: ['alice'] }], validDays: 1, clientAuth: true }, { certPem: caPem, key: caKey });
    const r = await get('/apis/events.cluster.io/v1/namespaces/team/events', { certPem: alice.certPem, keyPem: alice.key.pem });
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, 'Forbidden');
    assert.equal(r.body.message, 'events.events.cluster.io is forbidden: User "alice" cannot list resource "events" in API group "events.cluster.io" in the namespace "team"');
    const one = await get('/apis/events.cluster.io/v1/namespaces/team/events/x', { certPem: alice.certPem, keyPem: alice.key.pem });
    assert.equal(one.body.message, 'events.events.cluster.io "x" is forbidden: User "alice" cannot get resource "events" in API group "events.cluster.io" in the namespace "team"');
  });

  it('refuses a certificate from another CA with 401', async () => {
    const otherCA = await issueCertificate({ subject: [{ CN: ['other-ca'] }], validDays: 1, ca: true });
    const mallory = await issueCertificate({ subject: [{ O: ['system:masters'] }, { CN: ['mallory'] }], validDays: 1, clientAuth: true }, otherCA);
    const r = await get('/apis/events.cluster.io/v1/events', { certPem: mallory.certPem, keyPem: mallory.key.pem });
    assert.equal(r.status, 401);
    assert.equal(r.body.message, 'Unauthorized');
  });
});
