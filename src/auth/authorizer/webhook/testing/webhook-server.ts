/**
 * A test-only authorization webhook on loopback HTTPS with its own CA: records every SubjectAccessReview it gets
 * (path, headers, body) and answers what the test's `answer` function says — a status, a delay, a raw body — so
 * tests can play allow, deny, no opinion, slow, broken and flaky webhooks. Writes the kubeconfig that names it.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, randomBytes, webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { newLoopbackPKI } from '../../../authenticator/jwt/testing/loopback-pki.ts';

x509.cryptoProvider.set(webcrypto as never);

export interface RecordedReview {
  readonly path: string;
  /** The client certificate's CN, when the server asked for one (`start({ mtls: true })`). */
  readonly clientCN?: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: any;
}

export interface Answer {
  /** Default 200. */
  readonly status?: number;
  /** Default `{apiVersion, kind, status}` built from `allowed`/`denied`/`reason`. */
  readonly raw?: string;
  readonly allowed?: boolean;
  readonly denied?: boolean;
  readonly reason?: string;
  /** Wait this long before answering. */
  readonly delayMs?: number;
  readonly headers?: Record<string, string>;
}

const b64of = (s: string) => Buffer.from(s).toString('base64');

export class TestWebhookServer {
  url = '';
  caPem = '';
  readonly reviews: RecordedReview[] = [];
  answer: (review: RecordedReview) => Answer = () => ({ allowed: false });
  /** With mTLS: a client certificate (CN `core-apiserver`) the server accepts, signed by a CA of its own. */
  client: { certPem: string; keyPem: string } | undefined;
  #server: Server | undefined;

  async start(o: { mtls?: boolean } = {}): Promise<this> {
    const pki = await newLoopbackPKI();
    this.caPem = pki.caPem;
    let clientCA: string | undefined;
    if (o.mtls) ({ caPem: clientCA, client: this.client } = await newClientPKI());
    const tls = clientCA ? { requestCert: true, rejectUnauthorized: true, ca: clientCA } : {};
    this.#server = createServer({ cert: pki.certPem, key: pki.keyPem, ...tls }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: any;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = Buffer.concat(chunks).toString('utf8');
        }
        const cn = clientCA ? (req.socket as TLSSocket).getPeerCertificate().subject?.CN : undefined;
        const review: RecordedReview = { path: req.url ?? '', headers: req.headers, body, ...(typeof cn === 'string' ? { clientCN: cn } : {}) };
        this.reviews.push(review);
        const a = this.answer(review);
        const send = () => {
          if (res.destroyed) return;
          const apiVersion = typeof body === 'object' && body ? body.apiVersion : 'authorization.k8s.io/v1';
          const status: Record<string, unknown> = { allowed: a.allowed ?? false };
          if (a.denied) status.denied = true;
          if (a.reason) status.reason = a.reason;
          const text = a.raw ?? JSON.stringify({ apiVersion, kind: 'SubjectAccessReview', status });
          res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
          res.end(text);
        };
        if (a.delayMs) setTimeout(send, a.delayMs);
        else send();
      });
    });
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    this.url = `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  /** Reviews received on `path` (each webhook of a test gets its own path). */
  on(path: string): RecordedReview[] {
    return this.reviews.filter((r) => r.path === path);
  }

  /**
   * Writes a kubeconfig naming this server at `path` of its URL, trusting its CA, with the client certificate (mTLS)
   * and an optional token, all embedded.
   */
  writeKubeconfig(file: string, path: string, token?: string): void {
    const b64 = Buffer.from(this.caPem).toString('base64');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: authz',
        '  cluster:',
        `    server: ${this.url}${path}`,
        `    certificate-authority-data: ${b64}`,
        'users:',
        '- name: apiserver',
        `  user: {${[...(token ? [`token: ${token}`] : []), ...(this.client ? [`client-certificate-data: ${b64of(this.client.certPem)}`, `client-key-data: ${b64of(this.client.keyPem)}`] : [])].join(', ')}}`,
        'contexts:',
        '- name: webhook',
        '  context: {cluster: authz, user: apiserver}',
        'current-context: webhook',
        '',
      ].join('\n'),
    );
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((r) => (this.#server ? this.#server.close(() => r()) : r()));
  }
}

/** A CA and a client certificate (EKU clientAuth) it signed, for webhooks that authenticate their callers. */
async function newClientPKI(): Promise<{ caPem: string; client: { certPem: string; keyPem: string } }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256' } as const;
  const signing = { name: 'ECDSA', hash: 'SHA-256' } as const;
  const gen = () => webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
  const [caKey, leafKey] = await Promise.all([gen(), gen()]);
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
  const caName = new x509.Name([{ CN: ['test-webhook-client-ca'] }]);
  const ca = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '1'),
    subject: caName,
    issuer: caName,
    ...validity,
    signingAlgorithm: signing,
    publicKey: caKey.publicKey,
    signingKey: caKey.privateKey,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true)],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^./, '2'),
    subject: new x509.Name([{ CN: ['core-apiserver'] }]),
    issuer: caName,
    ...validity,
    signingAlgorithm: signing,
    publicKey: leafKey.publicKey,
    signingKey: caKey.privateKey,
    extensions: [new x509.BasicConstraintsExtension(false, undefined, true), new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
  });
  const keyPem = KeyObject.from(leafKey.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { caPem: ca.toString('pem') + '\n', client: { certPem: leaf.toString('pem') + '\n', keyPem } };
}
