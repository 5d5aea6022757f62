/**
 * Low-level clients for the resilience tests: the admin credentials from the generated kubeconfig, HTTP/2 sessions,
 * and a raw HTTPS request that never hangs (it resolves with `timedOut` instead) and can cut a stream short.
 */
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { parse as parseYAML } from 'yaml';

export interface ClientTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** The CA, client certificate and key of the first cluster/user of a kubeconfig with embedded data. */
export function clientTls(kubeconfigPath: string): ClientTls {
  const kc = parseYAML(readFileSync(kubeconfigPath, 'utf8'));
  const user = kc.users[0].user;
  const cluster = kc.clusters[0].cluster;
  return {
    ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
    cert: Buffer.from(user['client-certificate-data'], 'base64'),
    key: Buffer.from(user['client-key-data'], 'base64'),
  };
}

/** Opens an HTTP/2 session (authenticated when `tls` has a certificate) and waits until it is connected. */
export function connectH2(port: number, tls: Pick<ClientTls, 'ca'> & Partial<ClientTls>): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    // Flow-control windows as Go's HTTP/2 transport (client-go, kubectl) sets them: 4 MiB per stream, 1 GiB per
    // connection. Node's 64 KiB defaults would make many busy watch streams on one session wait on the client.
    const session = http2.connect(`https://127.0.0.1:${port}`, {
      ...tls,
      servername: 'localhost',
      peerMaxConcurrentStreams: 2000,
      maxSendHeaderBlockLength: 1 << 20,
      // Node's 10 MB default counts request bodies queued behind flow control: a few concurrent multi-MB uploads
      // would make the client itself reset its streams (ENHANCE_YOUR_CALM), which is no fault of the server.
      maxSessionMemory: 256,
      settings: { initialWindowSize: 4 << 20 },
    });
    session.once('connect', () => {
      session.off('error', reject);
      session.setLocalWindowSize(1 << 30);
      // Errors after connect surface on the streams; keep the session from crashing the test process.
      session.on('error', () => {});
      resolve(session);
    });
    session.once('error', reject);
  });
}

export interface RawResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** True when no complete answer arrived within the timeout. */
  timedOut: boolean;
  /** True when the body was deliberately cut short (streams). */
  cut: boolean;
  /** True when the server broke off the response before its end. */
  aborted: boolean;
}

export interface RawRequest {
  port: number;
  agent: https.Agent;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  timeoutMs: number;
  /** Stop reading a 2xx body after this long (a watch streams until its timeout). */
  cutAfterMs?: number;
}

/** One HTTPS request; a transport error rejects, a missing or incomplete answer resolves with `timedOut`. */
export function rawRequest(r: RawRequest): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: RawResult['headers'] = {};
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (how: 'end' | 'timedOut' | 'cut' | 'aborted') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(cutTimer);
      resolve({ status, headers, body: Buffer.concat(chunks), timedOut: how === 'timedOut', cut: how === 'cut', aborted: how === 'aborted' });
    };
    const timer = setTimeout(() => {
      finish('timedOut');
      req.destroy();
    }, r.timeoutMs);
    let cutTimer: NodeJS.Timeout | undefined;
    const req = https.request(
      { host: '127.0.0.1', port: r.port, method: r.method, path: r.path, headers: r.headers, agent: r.agent },
      (res) => {
        status = res.statusCode ?? 0;
        headers = res.headers;
        if (status < 300 && r.cutAfterMs !== undefined) {
          cutTimer = setTimeout(() => {
            finish('cut');
            res.destroy();
          }, r.cutAfterMs);
        }
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish(res.complete ? 'end' : 'aborted'));
        res.on('aborted', () => finish('aborted'));
        res.on('error', () => finish('aborted'));
      },
    );
    req.on('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(cutTimer);
      reject(e);
    });
    req.end(r.body);
  });
}

/** Resident set size of a process in bytes, from /proc/<pid>/status. */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

/** The same as rawRequest over an HTTP/2 session; a stream reset by the server counts as `aborted`. */
export function h2Request(session: http2.ClientHttp2Session, r: Omit<RawRequest, 'port' | 'agent'>): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: RawResult['headers'] = {};
    const chunks: Buffer[] = [];
    let settled = false;
    let cutTimer: NodeJS.Timeout | undefined;
    const finish = (how: 'end' | 'timedOut' | 'cut' | 'aborted') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(cutTimer);
      resolve({ status, headers, body: Buffer.concat(chunks), timedOut: how === 'timedOut', cut: how === 'cut', aborted: how === 'aborted' });
    };
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request({ ':method': r.method, ':path': r.path, ...r.headers }, { endStream: !r.body });
    } catch (e) {
      reject(e);
      return;
    }
    const timer = setTimeout(() => {
      finish('timedOut');
      stream.close(http2.constants.NGHTTP2_CANCEL);
    }, r.timeoutMs);
    stream.on('response', (h) => {
      status = Number(h[':status']);
      headers = h as RawResult['headers'];
      if (status < 300 && r.cutAfterMs !== undefined) {
        cutTimer = setTimeout(() => {
          finish('cut');
          stream.close(http2.constants.NGHTTP2_CANCEL);
        }, r.cutAfterMs);
      }
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      // Without a response the stream was refused or reset: the close handler reports that.
      if (status !== 0) finish(stream.rstCode && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR ? 'aborted' : 'end');
    });
    stream.on('close', () => {
      if (settled) return;
      if (status === 0) {
        settled = true;
        clearTimeout(timer);
        reject(new Error(`stream closed without a response (rstCode ${stream.rstCode})`));
      } else finish(stream.rstCode === http2.constants.NGHTTP2_NO_ERROR ? 'end' : 'aborted');
    });
    stream.on('error', () => {});
    if (r.body) stream.end(r.body);
  });
}
