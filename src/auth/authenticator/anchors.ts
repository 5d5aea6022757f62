/**
 * Which certificate authority a client certificate chains to. The TLS layer verifies client certificates against
 * one pool, but kube-apiserver trusts two authorities for different things: `--client-ca-file` names users,
 * `--requestheader-client-ca-file` names front proxies whose headers name users. Upstream serves the union of both
 * in the handshake and lets each authenticator verify against its own pool; here TLS has verified the chain
 * against the union, and each authenticator checks that the chain it verified reaches one of its own certificates.
 */
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

/** The socket method this needs (an HTTP/2 compat request's socket proxy forwards it). */
export type ChainSocket = Pick<TLSSocket, 'getPeerCertificate'>;

export class CertificateAnchors {
  readonly #certs: X509Certificate[];
  readonly #raw: Buffer[];

  /** `pem`: the CA bundle (one or more PEM certificates; anything else in the file is ignored). */
  constructor(pem: string) {
    this.#certs = (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) => new X509Certificate(block));
    this.#raw = this.#certs.map((c) => c.raw);
  }

  get size(): number {
    return this.#certs.length;
  }

  /**
   * Whether the peer's verified chain contains one of these certificates or a certificate one of them issued and
   * signed (a bundle may hold an intermediate: Go's verifier treats every pool certificate as a root). Call only
   * for a socket whose certificate TLS verified.
   */
  anchors(socket: ChainSocket): boolean {
    if (typeof socket.getPeerCertificate !== 'function') return false;
    let c: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true) as DetailedPeerCertificate;
    const seen = new Set<object>();
    while (c && c.raw && !seen.has(c)) {
      seen.add(c);
      if (this.#raw.some((r) => r.equals(c!.raw))) return true;
      const x = new X509Certificate(c.raw);
      for (const anchor of this.#certs) if (x.checkIssued(anchor) && x.verify(anchor.publicKey)) return true;
      c = c.issuerCertificate;
    }
    return false;
  }
}
