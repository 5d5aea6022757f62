/**
 * Minimal keep-alive HTTPS clients for the bench's own load processes: HTTP/2 sessions (node:http2) and
 * HTTP/1.1 connections (node:https Agent), both presenting the admin client certificate. h2load cannot present a
 * client certificate and wrk cannot either, so HTTP/2 load and everything that must be authenticated beyond
 * autocannon's fixed request loop goes through these.
 */
import http2 from 'node:http2';
import https from 'node:https';
import type { ClientCreds } from './certs.ts';

export type Transport = 'h1' | 'h2';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

export interface RequestOpts {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Called for each body chunk; without it the body is drained and discarded. */
  onData?(chunk: Buffer): void;
  /** Called when the response headers arrive. */
  onResponse?(r: Reply): void;
}

/** One logical client: a pool of HTTP/2 sessions used round-robin, or an HTTP/1.1 keep-alive agent. */
export class Client {
  readonly transport: Transport;
  readonly #origin: string;
  readonly #creds: ClientCreds;
  readonly #sessions: (http2.ClientHttp2Session | undefined)[];
  readonly #agent: https.Agent | undefined;
  readonly #url: URL;
  #rr = 0;

  constructor(origin: string, creds: ClientCreds, transport: Transport, opts: { sessions?: number; maxSockets?: number } = {}) {
    this.transport = transport;
    this.#origin = origin;
    this.#creds = creds;
    this.#url = new URL(origin);
    this.#sessions = new Array(transport === 'h2' ? Math.max(1, opts.sessions ?? 1) : 0).fill(undefined);
    this.#agent = transport === 'h1' ? new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? Infinity, ca: creds.ca, cert: creds.cert, key: creds.key }) : undefined;
  }

  #session(): http2.ClientHttp2Session {
    const i = this.#rr++ % this.#sessions.length;
    let s = this.#sessions[i];
    if (!s || s.closed || s.destroyed) {
      s = http2.connect(this.#origin, { ca: this.#creds.ca, cert: this.#creds.cert, key: this.#creds.key, settings: { initialWindowSize: 1 << 24 } });
      s.on('error', () => {});
      // Large list bodies and 1,000 multiplexed watches must not stall on the 64 KB default connection window.
      s.on('connect', () => s!.setLocalWindowSize(1 << 26));
      this.#sessions[i] = s;
    }
    return s;
  }

  /** Sends one request; resolves with the status when the whole response has been received. */
  request(o: RequestOpts): Promise<Reply> {
    return this.transport === 'h2' ? this.#h2(o) : this.#h1(o);
  }

  #h2(o: RequestOpts): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const headers: http2.OutgoingHttpHeaders = { ':method': o.method, ':path': o.path, ...o.headers };
      if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = Buffer.byteLength(o.body);
      }
      const req = this.#session().request(headers, { endStream: o.body === undefined });
      let reply: Reply = { status: 0, headers: {} };
      req.on('response', (h) => {
        reply = { status: Number(h[':status']), headers: h as Reply['headers'] };
        o.onResponse?.(reply);
      });
      if (o.onData) req.on('data', o.onData);
      else req.resume();
      req.on('end', () => resolve(reply));
      req.on('error', reject);
      if (o.body !== undefined) req.end(o.body);
    });
  }

  #h1(o: RequestOpts): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...o.headers };
      if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = Buffer.byteLength(o.body);
      }
      const req = https.request({ host: this.#url.hostname, port: this.#url.port, method: o.method, path: o.path, headers, agent: this.#agent }, (res) => {
        const reply: Reply = { status: res.statusCode ?? 0, headers: res.headers };
        o.onResponse?.(reply);
        if (o.onData) res.on('data', o.onData);
        else res.resume();
        res.on('end', () => resolve(reply));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(o.body);
    });
  }

  close(): void {
    for (const s of this.#sessions) s?.close();
    this.#agent?.destroy();
  }
}
