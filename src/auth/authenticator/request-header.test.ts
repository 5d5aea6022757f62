import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { Socket } from 'node:net';
import { type IssuedCert, issueCertificate } from '../../cmd/x509gen.ts';
import { CertificateAnchors } from './anchors.ts';
import { type AuthenticationResult, type AuthenticatorRequest, NO_CREDENTIALS } from './interface.ts';
import { pathUnescape, RequestHeaderAuthenticator, requestHeaderNamesToStrip } from './request-header.ts';
import { UnionAuthenticator } from './union.ts';
import { X509Authenticator } from './x509.ts';

let clientCA: IssuedCert;
let proxyCA: IssuedCert;
let proxy: IssuedCert;
let otherProxy: IssuedCert;
let admin: IssuedCert;

before(async () => {
  clientCA = await issueCertificate({ subject: [{ CN: ['client-ca'] }], validDays: 1, ca: true });
  proxyCA = await issueCertificate({ subject: [{ CN: ['front-proxy-ca'] }], validDays: 1, ca: true });
  proxy = await issueCertificate({ subject: [{ CN: ['front-proxy-client'] }], validDays: 1, clientAuth: true }, { certPem: proxyCA.certPem, key: proxyCA.key });
  otherProxy = await issueCertificate({ subject: [{ CN: ['someone-else'] }], validDays: 1, clientAuth: true }, { certPem: proxyCA.certPem, key: proxyCA.key });
  admin = await issueCertificate({ subject: [{ O: ['system:masters'] }, { CN: ['admin'] }], validDays: 1, clientAuth: true }, { certPem: clientCA.certPem, key: clientCA.key });
});

/** A TLS socket whose handshake verified `leaf` (issued by `ca`) against the union of both authorities. */
function socketWith(leaf: IssuedCert | undefined, ca?: IssuedCert): Socket {
  if (!leaf) return { authorized: false, authorizationError: null, getPeerCertificate: () => ({}) } as unknown as Socket;
  const x = new X509Certificate(leaf.certPem);
  const root = new X509Certificate(ca!.certPem);
  const rootPeer: Record<string, unknown> = { raw: root.raw, subject: { CN: 'ca' } };
  rootPeer.issuerCertificate = rootPeer;
  const peer = { raw: x.raw, subject: { CN: x.subject.match(/CN=(.*)/)![1] }, serialNumber: x.serialNumber, valid_to: x.validTo, issuerCertificate: rootPeer };
  return { authorized: true, getPeerCertificate: () => peer } as unknown as Socket;
}

function request(socket: Socket, lines: [string, string][]): AuthenticatorRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of lines) headers[k.toLowerCase()] = headers[k.toLowerCase()] ? `${headers[k.toLowerCase()]}, ${v}` : v;
  return { headers, rawHeaders: lines.flat(), socket };
}

const STANDARD = { usernameHeaders: ['X-Remote-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

test('request header: a proxy certificate\'s headers name the user, groups in order, extra keys lower-cased and unescaped', () => {
  const a = new RequestHeaderAuthenticator({ ...STANDARD, anchors: new CertificateAnchors(proxyCA.certPem), allowedNames: [] });
  const r = a.authenticate(
    request(socketWith(proxy, proxyCA), [
      ['X-Remote-User', 'jane'],
      ['x-remote-uid', 'u-1'],
      ['X-Remote-Group', 'dev'],
      ['X-Remote-Group', 'ops'],
      ['X-Remote-Group', ''],
      ['X-Remote-Extra-Scopes', 'read'],
      ['X-Remote-Extra-Scopes', 'write'],
      ['X-Remote-Extra-Example.com%2fteam', 'a'],
    ]),
  );
  assert.deepEqual(r.user, { name: 'jane', uid: 'u-1', groups: ['dev', 'ops', 'system:authenticated'], extra: { scopes: ['read', 'write'], 'example.com/team': ['a'] } });
  // without a username header it is not this method's request (x509 then refuses the proxy's own certificate)
  assert.equal(a.authenticate(request(socketWith(proxy, proxyCA), [['X-Remote-Group', 'dev']])), NO_CREDENTIALS);
  // a proxy may say system:unauthenticated on purpose
  assert.deepEqual(a.authenticate(request(socketWith(proxy, proxyCA), [['X-Remote-User', 'x'], ['X-Remote-Group', 'system:unauthenticated']])).user?.groups, ['system:unauthenticated']);
});

test('request header: ignored without a proxy certificate; refused for another authority or a name not allowed', () => {
  const a = new RequestHeaderAuthenticator({ ...STANDARD, anchors: new CertificateAnchors(proxyCA.certPem), allowedNames: ['front-proxy-client'] });
  const headers: [string, string][] = [['X-Remote-User', 'mallory'], ['X-Remote-Group', 'system:masters']];
  assert.equal(a.authenticate(request(socketWith(undefined), headers)), NO_CREDENTIALS);
  const fromAdmin = a.authenticate(request(socketWith(admin, clientCA), headers));
  assert.equal(fromAdmin.user, null);
  assert.match(fromAdmin.error!.message, /^verifying certificate SN=\d+, SKID=.*, AKID=.* failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE$/);
  assert.equal(a.authenticate(request(socketWith(otherProxy, proxyCA), headers)).error?.message, 'x509: subject with cn=someone-else is not in the allowed list');
  assert.equal(a.authenticate(request(socketWith(proxy, proxyCA), headers)).user?.name, 'mallory');
});

test('request header and x509 in kube-apiserver\'s order: each authority names users only its own way', () => {
  const union = new UnionAuthenticator([
    new RequestHeaderAuthenticator({ ...STANDARD, anchors: new CertificateAnchors(proxyCA.certPem), allowedNames: [] }),
    new X509Authenticator({ anchors: new CertificateAnchors(clientCA.certPem) }),
  ]);
  const spoof: [string, string][] = [['X-Remote-User', 'mallory'], ['X-Remote-Group', 'system:masters']];
  // the admin's own certificate wins over headers it sends
  assert.equal((union.authenticate(request(socketWith(admin, clientCA), spoof)) as { user: { name: string } }).user.name, 'admin');
  // the proxy's certificate alone is no user: the client CA did not issue it
  const bare = union.authenticate(request(socketWith(proxy, proxyCA), [])) as AuthenticationResult;
  assert.equal(bare.user, null);
  assert.match(bare.error!.message, /failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE$/);
});

test('pathUnescape and the names to strip', () => {
  assert.equal(pathUnescape('a%2Fb%20c'), 'a/b c');
  assert.equal(pathUnescape('bad%zz'), 'bad%zz');
  assert.equal(pathUnescape('caf%C3%A9'), 'café');
  const s = requestHeaderNamesToStrip({ usernameHeaders: [' X-Proxy-User '], uidHeaders: [], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Proxy-Extra-'] });
  assert.deepEqual([...s.exact].sort(), ['x-proxy-user', 'x-remote-group', 'x-remote-uid', 'x-remote-user']);
  assert.deepEqual(s.prefixes, ['x-remote-extra-', 'x-proxy-extra-']);
});
