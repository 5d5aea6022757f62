/**
 * Client-certificate authentication as apiserver's x509 authenticator (pkg/authentication/request/x509): the TLS
 * layer verifies the chain against the client CA (the server requests but does not require a certificate), and a
 * verified certificate names the user by its subject.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { type AuthenticationResult, type Authenticator, type AuthenticatorRequest, NO_CREDENTIALS } from './interface.ts';
import type { CertificateAnchors } from './anchors.ts';
import { CREDENTIAL_ID_KEY, GROUP_AUTHENTICATED, GROUP_UNAUTHENTICATED, type UserInfo } from './user.ts';

/**
 * The authenticator: a certificate's result is worked out once per connection, since reading the peer certificate
 * costs more than the rest of a small request and cannot change within a TLS connection. HTTP/2 requests share
 * their session's connection (each gets its own socket proxy, so the session is the key).
 */
export class X509Authenticator implements Authenticator {
  readonly #byConnection = new WeakMap<object, Verified>();
  readonly #anchors: CertificateAnchors | undefined;
  readonly #observeExpiration: ((seconds: number) => void) | undefined;

  /**
   * `anchors`: the `--client-ca-file` certificates, when TLS verifies against more than them (a request-header CA
   * too); a certificate of another authority is then refused as upstream's own verification refuses it.
   * `observeExpiration`: told, for every request that presents a certificate, the seconds it has left
   * (upstream's apiserver_client_certificate_expiration_seconds, observed before verification).
   */
  constructor(opts: { anchors?: CertificateAnchors | undefined; observeExpiration?: ((seconds: number) => void) | undefined } = {}) {
    this.#anchors = opts.anchors;
    this.#observeExpiration = opts.observeExpiration;
  }

  authenticate(req: AuthenticatorRequest): AuthenticationResult {
    const connection = req.stream?.session ?? req.socket;
    let v = this.#byConnection.get(connection);
    if (v === undefined) {
      v = authenticateCertificate(req.socket as unknown as PeerSocket, this.#anchors);
      this.#byConnection.set(connection, v);
    }
    if (v.notAfter !== undefined && this.#observeExpiration) this.#observeExpiration((v.notAfter - Date.now()) / 1000);
    return v.result;
  }
}

/** A connection's certificate as worked out once: the answer, and when the certificate expires (ms; none sent: undefined). */
interface Verified {
  result: AuthenticationResult;
  notAfter: number | undefined;
}

/**
 * A verified certificate's user; a presented one that did not verify is refused with upstream's error text; none,
 * or a verified one without a usable subject (no CN, several UIDs), counts as no credential of this kind.
 */
function authenticateCertificate(socket: PeerSocket, anchors: CertificateAnchors | undefined): Verified {
  const cert = peerCertificate(socket);
  if (!cert) return { result: NO_CREDENTIALS, notAfter: undefined };
  const notAfter = Date.parse(cert.valid_to);
  if (!socket.authorized) return { result: { user: null, error: new Error(certificateFailure(cert, reasonOf(socket))) }, notAfter };
  // OpenSSL's code for a chain that ends at an authority it does not trust, as Node reports it.
  if (anchors && !anchors.anchors(socket)) return { result: { user: null, error: new Error(certificateFailure(cert, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')) }, notAfter };
  const user = userOfCertificate(cert);
  return { result: user ? { user } : NO_CREDENTIALS, notAfter };
}

/** The socket methods we use; for HTTP/2 compat requests `req.socket` is a proxy that forwards these. */
export type PeerSocket = Pick<TLSSocket, 'authorized' | 'authorizationError' | 'getPeerCertificate'>;

/**
 * The user of a verified client certificate: the subject's CN (the last one, as Go's pkix.Name keeps) is the name,
 * each O in order a group, plus `system:authenticated`; UID from the subject's `UID` attribute
 * (0.9.2342.19200300.100.1.1). Null when no certificate was sent, it did not verify, its CN is empty, or it has
 * several or an empty UID.
 */
export function userFromPeerCertificate(socket: PeerSocket): UserInfo | null {
  if (!socket.authorized) return null;
  const cert = peerCertificate(socket);
  return cert ? userOfCertificate(cert) : null;
}

function userOfCertificate(cert: PeerCertificate): UserInfo | null {
  const name = last(cert.subject.CN);
  if (!name) return null;
  const groups = all(cert.subject.O);
  // The authenticated-group adder leaves users that already carry either well-known group alone.
  if (!groups.includes(GROUP_AUTHENTICATED) && !groups.includes(GROUP_UNAUTHENTICATED)) groups.push(GROUP_AUTHENTICATED);
  const user: UserInfo = { name, groups };
  const uids = all((cert.subject as unknown as Record<string, string | string[] | undefined>)['UID']);
  // Upstream rejects the credential (401) for several UIDs or an empty one.
  if (uids.length > 1 || uids[0] === '') return null;
  if (uids.length === 1) user.uid = uids[0]!;
  user.extra = { [CREDENTIAL_ID_KEY]: [`X509SHA256=${createHash('sha256').update(cert.raw).digest('hex')}`] };
  return user;
}

/**
 * Why a presented client certificate was not accepted, for the log (upstream answers such a request 401 whatever
 * the path): `verifying certificate SN=<n>, SKID=<..>, AKID=<..> failed: <err>`. Null when no certificate was sent or
 * it verified.
 */
export function peerCertificateFailure(socket: PeerSocket): string | null {
  if (socket.authorized) return null;
  const cert = peerCertificate(socket);
  if (!cert) return null;
  return certificateFailure(cert, reasonOf(socket));
}

function reasonOf(socket: PeerSocket): string {
  const err = socket.authorizationError;
  return err instanceof Error ? err.message : String(err ?? 'unknown error');
}

/** `verifying certificate SN=<n>, SKID=<..>, AKID=<..> failed: <reason>`. */
export function certificateFailure(cert: PeerCertificate, reason: string): string {
  const serial = BigInt(`0x${cert.serialNumber || '0'}`).toString(10);
  const { skid, akid } = keyIds(cert.raw);
  return `verifying certificate SN=${serial}, SKID=${skid}, AKID=${akid} failed: ${reason}`;
}

export function peerCertificate(socket: Pick<TLSSocket, 'getPeerCertificate'>): PeerCertificate | null {
  // An HTTP/2 socket proxy whose session has gone has no such method any more.
  if (typeof socket.getPeerCertificate !== 'function') return null;
  const cert = socket.getPeerCertificate(false) as PeerCertificate | null;
  // Without a client certificate Node returns an empty object.
  if (!cert || !cert.raw || !cert.subject) return null;
  return cert;
}

export function last(v: string | string[] | undefined): string {
  if (Array.isArray(v)) return v[v.length - 1] ?? '';
  return v ?? '';
}

function all(v: string | string[] | undefined): string[] {
  if (Array.isArray(v)) return [...v];
  return v === undefined ? [] : [v];
}

/** Key identifiers of a certificate, parsed on the rare failure path only (so the parser loads lazily). */
function keyIds(raw: Buffer): { skid: string; akid: string } {
  const require = createRequire(import.meta.url);
  require('reflect-metadata'); // @peculiar/x509's dependency injection needs the polyfill first
  const x509 = require('@peculiar/x509') as typeof import('@peculiar/x509');
  try {
    const c = new x509.X509Certificate(raw);
    const skid = c.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ?? '';
    const akid = c.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId ?? '';
    return { skid: colonHex(skid), akid: colonHex(akid) };
  } catch {
    return { skid: '', akid: '' };
  }
}

/** Go's columnSeparatedHex: upper-case byte pairs joined by colons. */
function colonHex(hex: string): string {
  return (hex.toUpperCase().match(/../g) ?? []).join(':');
}
