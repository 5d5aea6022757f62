/**
 * A test-only authorization webhook on loopback HTTPS with its own CA: records every SubjectAccessReview it gets
 * (path, headers, body) and answers what the test's `answer` function says — a status, a delay, a raw body — so
 * tests can play allow, deny, no opinion, slow, broken and flaky webhooks. Writes the kubeconfig that names it.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { newLoopbackPKI } from '../../../authenticator/jwt/testing/loopback-pki.ts';

export interface RecordedReview {
  readonly path: string;
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

export class TestWebhookServer {
  url = '';
  caPem = '';
  readonly reviews: RecordedReview[] = [];
  answer: (review: RecordedReview) => Answer = () => ({ allowed: false });
  #server: Server | undefined;

  async start(): Promise<this> {
    const pki = await newLoopbackPKI();
    this.caPem = pki.caPem;
    this.#server = createServer({ cert: pki.certPem, key: pki.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: any;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = Buffer.concat(chunks).toString('utf8');
        }
        const review: RecordedReview = { path: req.url ?? '', headers: req.headers, body };
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

  /** Writes a kubeconfig naming this server at `path` of its URL, trusting its CA (embedded), with an optional token. */
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
        `  user: ${token ? `{token: ${token}}` : '{}'}`,
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
