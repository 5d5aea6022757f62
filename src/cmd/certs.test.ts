import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { request, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertError, ensurePki, loadClientCaFile, loadTlsFiles } from './certs.ts';
import type { Pki } from './certs.ts';
import { log } from '../util/log.ts';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pki-'));
  const logged: string[] = [];
  log.setOutput({ write: (s: string) => logged.push(s) });
  try {
    await fn(dir);
  } finally {
    log.setOutput(2);
    rmSync(dir, { recursive: true, force: true });
  }
}

test('ensurePki issues a CA, a serving and an admin certificate with the right contents', () => withDir(async (dir) => {
  const pki = await ensurePki(join(dir, 'data'), { hosts: ['10.1.2.3', '0.0.0.0'] });
  assert.deepEqual(pki.issued, ['ca', 'serving', 'admin', 'bootstrap']);
  const ca = new X509Certificate(pki.caCertPem);
  const server = new X509Certificate(pki.serverCertPem);
  const admin = new X509Certificate(pki.adminCertPem);

  assert.equal(ca.subject, 'CN=core-apiserver-ca');
  assert.equal(ca.issuer, 'CN=core-apiserver-ca');
  assert.equal(ca.ca, true);
  assert.ok(ca.verify(ca.publicKey));
  assert.equal(ca.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');

  assert.equal(server.issuer, 'CN=core-apiserver-ca');
  assert.equal(server.ca, false);
  assert.ok(server.verify(ca.publicKey));
  assert.ok(server.checkIssued(ca));
  assert.deepEqual(server.keyUsage, [SERVER_AUTH]);
  const sans = server.subjectAltName!.split(', ');
  for (const san of ['DNS:localhost', `DNS:${hostname().toLowerCase()}`, 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:10.1.2.3']) {
    assert.ok(sans.includes(san), `${san} in ${server.subjectAltName}`);
  }
  assert.ok(!sans.includes('IP Address:0.0.0.0'));
  assert.equal(server.checkIP('::1'), '::1');
  assert.ok(server.checkHost('localhost'));

  assert.equal(admin.subject, 'O=system:masters\nCN=admin');
  assert.equal(admin.issuer, 'CN=core-apiserver-ca');
  assert.deepEqual(admin.keyUsage, [CLIENT_AUTH]);
  assert.ok(admin.verify(ca.publicKey));
  assert.equal(admin.subjectAltName, undefined);
  assert.ok(Date.parse(admin.validTo) - Date.now() > 300 * 86_400_000);
  assert.notEqual(admin.serialNumber, server.serialNumber);
  assert.match(pki.serverKeyPem, /^-----BEGIN PRIVATE KEY-----\n/);
}));

test('files, modes and reuse on the next start', () => withDir(async (dir) => {
  const first = await ensurePki(dir, { hosts: ['127.0.0.1'] });
  const { paths } = first;
  assert.equal(paths.dir, join(dir, 'pki'));
  assert.equal(statSync(paths.dir).mode & 0o777, 0o700);
  for (const key of [paths.caKey, paths.serverKey, paths.adminKey]) assert.equal(statSync(key).mode & 0o777, 0o600, key);
  for (const cert of [paths.caCert, paths.serverCert, paths.adminCert]) assert.equal(statSync(cert).mode & 0o777, 0o644, cert);
  assert.equal(readFileSync(paths.serverKey, 'utf8'), first.serverKeyPem);
  assert.equal(readFileSync(paths.caCert, 'utf8'), first.caCertPem);

  const second = await ensurePki(dir, { hosts: ['127.0.0.1'] });
  assert.deepEqual(second.issued, []);
  assert.equal(second.caCertPem, first.caCertPem);
  assert.equal(second.serverCertPem, first.serverCertPem);
  assert.equal(second.serverKeyPem, first.serverKeyPem);
  assert.equal(second.adminCertPem, first.adminCertPem);
  assert.equal(second.adminKeyPem, first.adminKeyPem);

  // A new bind address re-issues only the serving certificate, under the same CA.
  const third = await ensurePki(dir, { hosts: ['192.168.77.5'] });
  assert.deepEqual(third.issued, ['serving']);
  assert.equal(third.caCertPem, first.caCertPem);
  assert.equal(third.adminCertPem, first.adminCertPem);
  assert.notEqual(third.serverCertPem, first.serverCertPem);
  assert.equal(new X509Certificate(third.serverCertPem).checkIP('192.168.77.5'), '192.168.77.5');
  assert.ok(new X509Certificate(third.serverCertPem).verify(new X509Certificate(first.caCertPem).publicKey));
}));

test('damaged or mismatched files are replaced; a new CA re-issues everything', () => withDir(async (dir) => {
  const first = await ensurePki(dir, { hosts: [] });
  writeFileSync(first.paths.adminKey, first.serverKeyPem); // key of another certificate
  const second = await ensurePki(dir, { hosts: [] });
  assert.deepEqual(second.issued, ['admin']);
  assert.ok(new X509Certificate(second.adminCertPem).publicKey.export({ format: 'pem', type: 'spki' }) !==
    new X509Certificate(first.adminCertPem).publicKey.export({ format: 'pem', type: 'spki' }));

  writeFileSync(first.paths.caCert, 'garbage');
  const third = await ensurePki(dir, { hosts: [] });
  assert.deepEqual(third.issued, ['ca', 'serving', 'admin', 'bootstrap']);
  assert.ok(new X509Certificate(third.serverCertPem).verify(new X509Certificate(third.caCertPem).publicKey));
}));

async function handshake(pki: Pki, host: string): Promise<{ subject: Record<string, unknown>; authorized: boolean }> {
  const server = createServer(
    { cert: pki.serverCertPem, key: pki.serverKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      res.end(JSON.stringify({ subject: socket.getPeerCertificate().subject, authorized: socket.authorized }));
    },
  );
  server.listen(0, host === 'localhost' ? '127.0.0.1' : host);
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const req = request({
      host: host === '::1' ? '::1' : host, port, path: '/', ca: pki.caCertPem, cert: pki.adminCertPem, key: pki.adminKeyPem,
    });
    req.end();
    const [res] = await once(req, 'response');
    let body = '';
    for await (const chunk of res) body += chunk;
    return JSON.parse(body);
  } finally {
    server.close();
  }
}

test('TLS: the client verifies the serving certificate and the server sees CN=admin, O=system:masters', () => withDir(async (dir) => {
  const pki = await ensurePki(dir, { hosts: [] });
  for (const host of ['127.0.0.1', 'localhost', '::1']) {
    const seen = await handshake(pki, host);
    assert.equal(seen.authorized, true, host);
    assert.equal(seen.subject.CN, 'admin');
    assert.equal(seen.subject.O, 'system:masters');
  }
}));

test('loadTlsFiles reads user files and explains what is wrong with them', () => withDir(async (dir) => {
  const pki = await ensurePki(dir, { hosts: [] });
  const { paths } = pki;
  const chain = join(dir, 'chain.crt');
  writeFileSync(chain, pki.serverCertPem + pki.caCertPem);
  assert.deepEqual(loadTlsFiles(chain, paths.serverKey), { certPem: pki.serverCertPem + pki.caCertPem, keyPem: pki.serverKeyPem });
  assert.equal(loadTlsFiles(paths.serverCert, paths.serverKey, paths.caCert).clientCaPem, pki.caCertPem);

  const missing = join(dir, 'missing.crt');
  assert.throws(() => loadTlsFiles(missing, paths.serverKey),
    (e: unknown) => e instanceof CertError && e.message === `unable to read --tls-cert-file "${missing}": no such file or directory`);
  assert.throws(() => loadTlsFiles(paths.serverCert, paths.adminKey),
    { message: `--tls-private-key-file "${paths.adminKey}" does not match the certificate in --tls-cert-file "${paths.serverCert}"` });
  assert.throws(() => loadTlsFiles(paths.serverCert, paths.serverCert),
    { message: new RegExp(`^--tls-private-key-file "${paths.serverCert}" does not contain a valid PEM private key`) });
  assert.throws(() => loadTlsFiles(paths.serverKey, paths.serverKey),
    { message: `--tls-cert-file "${paths.serverKey}" contains no PEM certificate` });
  const broken = join(dir, 'broken.crt');
  writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  assert.throws(() => loadTlsFiles(paths.serverCert, paths.serverKey, broken),
    { message: new RegExp(`^--client-ca-file "${broken}" contains an invalid certificate`) });
  const bundle = join(dir, 'bundle.crt');
  writeFileSync(bundle, pki.caCertPem + pki.adminCertPem);
  assert.equal(loadClientCaFile(bundle), pki.caCertPem + pki.adminCertPem);
  assert.throws(() => loadClientCaFile(paths.adminKey), { message: `--client-ca-file "${paths.adminKey}" contains no PEM certificate` });
  if (process.getuid?.() !== 0) {
    chmodSync(paths.caCert, 0o000);
    assert.throws(() => loadTlsFiles(paths.serverCert, paths.serverKey, paths.caCert),
      { message: `unable to read --client-ca-file "${paths.caCert}": permission denied` });
  }
}));
