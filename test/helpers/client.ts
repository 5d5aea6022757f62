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

/** Opens an authenticated HTTP/2 session and waits until it is connected. */
export function connectH2(port: number, tls: ClientTls): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ...tls, servername: 'localhost', peerMaxConcurrentStreams: 2000 });
    session.once('connect', () => {
      session.off('error', reject);
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
