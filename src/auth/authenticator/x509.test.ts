import 'reflect-metadata';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { KeyObject, webcrypto, createHash } from 'node:crypto';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';
import { CREDENTIAL_ID_KEY, type UserInfo } from './user.ts';
import type { Socket } from 'node:net';
import type { AuthenticationResult, AuthenticatorRequest } from './interface.ts';
import { NO_CREDENTIALS } from './interface.ts';
import { X509Authenticator, userFromPeerCertificate, peerCertificateFailure } from './x509.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
type CryptoKeyPair = webcrypto.CryptoKeyPair;
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const HOUR = 3600_000;

interface Issued {
  certPem: string;
  keyPem: string;
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
}

let serial = 1;
async function issue(subject: string, issuer: Issued | null, opts: { ca?: boolean; eku?: string[]; san?: boolean; expired?: boolean } = {}) {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(!!opts.ca, undefined, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  if (issuer) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey));
  if (opts.eku) extensions.push(new x509.ExtendedKeyUsageExtension(opts.eku));
  if (opts.san) extensions.push(new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }, { type: 'ip', value: '127.0.0.1' }]));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject,
    issuer: issuer ? issuer.cert.subject : subject,
    notBefore: new Date(now - HOUR),
    notAfter: new Date(opts.expired ? now - 60_000 : now + HOUR),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: issuer ? issuer.keys.privateKey : keys.privateKey,
    extensions,
  });
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { certPem: cert.toString('pem'), keyPem, cert, keys } satisfies Issued;
}

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

let ca: Issued;
let server: http2.Http2SecureServer;
let port: number;
const certs: Record<string, Issued> = {};
/** What the server saw for the last request: the user and the failure text. */
let seen: { user: UserInfo | null; failure: string | null; http2: boolean; result: AuthenticationResult } | null = null;
const authenticator = new X509Authenticator();

before(async () => {
  ca = await issue('CN=test-ca', null, { ca: true });
  const otherCA = await issue('CN=other-ca', null, { ca: true });
  const serverCert = await issue('CN=localhost', ca, { san: true, eku: [SERVER_AUTH] });
  certs.admin = await issue('CN=alice, O=system:masters, O=dev', ca, { eku: [CLIENT_AUTH] });
  certs.noEku = await issue('CN=bob', ca);
  certs.uid = await issue('CN=carol, 0.9.2342.19200300.100.1.1=u-123', ca, { eku: [CLIENT_AUTH] });
  certs.twoUids = await issue('CN=carol, 0.9.2342.19200300.100.1.1=a, 0.9.2342.19200300.100.1.1=b', ca);
  certs.twoCNs = await issue('CN=first, CN=second, O=g1', ca);
  certs.noCN = await issue('O=system:masters', ca);
  certs.unauthGroup = await issue('CN=dave, O=system:unauthenticated', ca);
  certs.foreign = await issue('CN=mallory, O=system:masters', otherCA, { eku: [CLIENT_AUTH] });
  certs.serverOnly = await issue('CN=eve, O=system:masters', ca, { eku: [SERVER_AUTH] });
  certs.expired = await issue('CN=old, O=system:masters', ca, { expired: true });

  server = http2.createSecureServer(
    { allowHTTP1: true, cert: serverCert.certPem, key: serverCert.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      seen = {
        user: userFromPeerCertificate(socket),
        failure: peerCertificateFailure(socket),
        http2: req.httpVersion === '2.0',
        result: authenticator.authenticate(req as unknown as AuthenticatorRequest),
      };
      res.end('done');
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

after(() => server.close());

/** The authenticator names the same user, and refuses a certificate that did not verify with the failure text. */
function assertAuthenticatorAgrees(s: NonNullable<typeof seen>): void {
  assert.deepEqual(s.result.user, s.user);
  assert.equal(s.result.error?.message ?? null, s.user ? null : s.failure);
  if (!s.user && !s.failure) assert.equal(s.result, NO_CREDENTIALS);
}

async function viaHttp1(client?: Issued) {
  seen = null;
  await new Promise<void>((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: '/', ca: ca.certPem, servername: 'localhost', cert: client?.certPem, key: client?.keyPem, agent: false },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end();
  });
  assert.equal(seen!.http2, false);
  assertAuthenticatorAgrees(seen!);
  return seen!;
}

async function viaHttp2(client?: Issued) {
  seen = null;
  const session = http2.connect(`https://localhost:${port}`, { ca: ca.certPem, cert: client?.certPem, key: client?.keyPem });
  try {
    await new Promise<void>((resolve, reject) => {
      const req = session.request({ ':path': '/' });
      req.on('error', reject);
      req.on('data', () => {});
      req.on('end', resolve);
      req.end();
    });
  } finally {
    session.close();
  }
  assert.equal(seen!.http2, true);
  assertAuthenticatorAgrees(seen!);
  return seen!;
}

for (const [label, send] of [['HTTP/1.1', viaHttp1], ['HTTP/2 compat socket proxy', viaHttp2]] as const) {
  test(`userFromPeerCertificate over ${label}: verified certificates name the user`, async () => {
    const fp = (i: Issued) => `X509SHA256=${createHash('sha256').update(Buffer.from(i.cert.rawData)).digest('hex')}`;
    let s = await send(certs.admin);
    assert.deepEqual(s.user, {
      name: 'alice',
      groups: ['system:masters', 'dev', 'system:authenticated'],
      extra: { [CREDENTIAL_ID_KEY]: [fp(certs.admin!)] },
    });
    assert.equal(s.failure, null);
    // no EKU at all means any usage, as in Go's verifier
    s = await send(certs.noEku);
    assert.deepEqual(s.user?.groups, ['system:authenticated']);
    assert.equal(s.user?.name, 'bob');
    s = await send(certs.uid);
    assert.equal(s.user?.uid, 'u-123');
    assert.equal(s.user?.name, 'carol');
    // Go's pkix.Name keeps the last CN
    s = await send(certs.twoCNs);
    assert.equal(s.user?.name, 'second');
    assert.deepEqual(s.user?.groups, ['g1', 'system:authenticated']);
    s = await send(certs.unauthGroup);
    assert.deepEqual(s.user?.groups, ['system:unauthenticated']);
  });

  test(`userFromPeerCertificate over ${label}: no user without a usable verified certificate`, async () => {
    let s = await send(undefined);
    assert.equal(s.user, null);
    assert.equal(s.failure, null);
    s = await send(certs.noCN);
    assert.equal(s.user, null);
    s = await send(certs.twoUids);
    assert.equal(s.user, null);
    s = await send(certs.foreign);
    assert.equal(s.user, null);
    const skid = (i: Issued) => i.cert.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId.toUpperCase().match(/../g)!.join(':');
    const akid = certs.foreign!.cert.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId!.toUpperCase().match(/../g)!.join(':');
    const sn = BigInt(`0x${certs.foreign!.cert.serialNumber}`).toString(10);
    assert.match(s.failure!, new RegExp(`^verifying certificate SN=${sn}, SKID=${skid(certs.foreign!)}, AKID=${akid} failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE$`));
    s = await send(certs.serverOnly);
    assert.equal(s.user, null);
    assert.match(s.failure!, /^verifying certificate SN=\d+, SKID=[0-9A-F:]+, AKID=[0-9A-F:]+ failed: INVALID_PURPOSE$/);
    s = await send(certs.expired);
    assert.equal(s.user, null);
    // Node reports OpenSSL's code where Go prints its x509 error text; only the log sees it
    assert.match(s.failure!, / failed: CERT_HAS_EXPIRED$/);
  });
}

test('userFromPeerCertificate: plain sockets without a certificate', () => {
  const fake = { authorized: false, authorizationError: null as unknown as Error, getPeerCertificate: () => ({}) } as unknown as TLSSocket;
  assert.equal(userFromPeerCertificate(fake), null);
  assert.equal(peerCertificateFailure(fake), null);
  // a proxy whose HTTP/2 session has closed no longer forwards methods
  const gone = { authorized: undefined } as unknown as TLSSocket;
  assert.equal(userFromPeerCertificate(gone), null);
  assert.equal(peerCertificateFailure(gone), null);
});

test('X509Authenticator: the certificate is read once per connection; HTTP/2 requests share their session', () => {
  let reads = 0;
  const peer = () => {
    reads++;
    return { raw: Buffer.from('der'), subject: { CN: 'alice', O: ['system:masters'] } };
  };
  const tlsSocket = { authorized: true, getPeerCertificate: peer } as unknown as Socket;
  const a = new X509Authenticator();
  const first = a.authenticate({ headers: {}, socket: tlsSocket });
  assert.equal(first.user?.name, 'alice');
  assert.deepEqual(first.user?.groups, ['system:masters', 'system:authenticated']);
  assert.equal(a.authenticate({ headers: {}, socket: tlsSocket }), first, 'the same answer object, no promise');
  assert.equal(reads, 1);
  // node gives each HTTP/2 compat request its own socket proxy; the session is the connection
  const session = {};
  const proxy = () => ({ authorized: true, getPeerCertificate: peer }) as unknown as Socket;
  const h2 = a.authenticate({ headers: {}, socket: proxy(), stream: { session } });
  assert.equal(a.authenticate({ headers: {}, socket: proxy(), stream: { session } }), h2);
  assert.equal(reads, 2);
  // the raw-stream form the early HTTP/2 refusal builds finds the same cached answer
  assert.equal(a.authenticate({ headers: { ':path': '/' }, socket: tlsSocket, stream: { session } }), h2);
  assert.equal(reads, 2);
});

test('X509Authenticator: a certificate that did not verify is refused with the failure text; none is no credential', () => {
  const a = new X509Authenticator();
  const failing = {
    authorized: false,
    authorizationError: new Error('CERT_HAS_EXPIRED'),
    getPeerCertificate: () => ({ raw: Buffer.from('not der'), serialNumber: '0A', subject: { CN: 'old' } }),
  } as unknown as Socket;
  const r = a.authenticate({ headers: {}, socket: failing });
  assert.equal(r.user, null);
  assert.equal(r.error?.message, 'verifying certificate SN=10, SKID=, AKID= failed: CERT_HAS_EXPIRED');
  const none = { authorized: false, authorizationError: null, getPeerCertificate: () => ({}) } as unknown as Socket;
  assert.equal(a.authenticate({ headers: {}, socket: none }), NO_CREDENTIALS);
});
