/**
 * Proxying a request to a backend (upstream `apimachinery/pkg/util/proxy` UpgradeAwareHandler and its transport):
 * method, body and end-to-end headers are forwarded, the answer is streamed back as it arrives. A backend that
 * cannot be reached is a 503 `error trying to reach service: <dial error>` as upstream's transport words it.
 */
import http from 'node:http';
import https from 'node:https';
import { newServiceUnavailable } from '../apimachinery/errors.ts';
import type { Request, Response } from './http-types.ts';

export interface ProxyTLS {
  /** CA bundle the backend's serving certificate must chain to. */
  ca?: string;
  /** Client certificate and key the server presents (upstream --kubelet-client-certificate/--kubelet-client-key). */
  cert?: string;
  key?: string;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) and the caller's credentials stay here: the backend gets the server's identity.
const DROPPED_REQUEST = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'authorization', 'impersonate-user', 'impersonate-group', 'impersonate-uid']);
const DROPPED_RESPONSE = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** Go's net error text for a failed dial, so the message reads as upstream's. */
function goDialError(err: NodeJS.ErrnoException, host: string, port: string): string {
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${addr}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    case 'ECONNRESET':
      return `read tcp ${addr}: read: connection reset by peer`;
    default:
      return err.message;
  }
}

/** Proxies `req` to `url` (scheme, host, port, path and query) and streams the answer into `res`. */
export function proxyRequest(req: Request, res: Response, target: { scheme: string; host: string; port: string; path: string }, tls: ProxyTLS, timeoutMs = 30_000): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':') || DROPPED_REQUEST.has(k)) continue;
    headers[k] = v;
  }
  const hostHeader = target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
  headers.host = hostHeader;
  const secure = target.scheme === 'https';
  const opts: https.RequestOptions = {
    method: req.method ?? 'GET',
    host: target.host,
    port: Number(target.port),
    path: target.path,
    headers,
    ...(secure ? { ca: tls.ca, cert: tls.cert, key: tls.key, servername: target.host.includes(':') || /^\d+\.\d+\.\d+\.\d+$/.test(target.host) ? undefined : target.host, agent: false } : {}),
  };
  return new Promise((resolve, reject) => {
    let responded = false;
    const out = (secure ? https : http).request(opts, (up) => {
      responded = true;
      const h: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !DROPPED_RESPONSE.has(k)) h[k] = v;
      res.writeHead(up.statusCode ?? 502, h);
      up.pipe(res);
      up.on('end', resolve);
      up.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    out.setTimeout(timeoutMs, () => out.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (responded) {
        res.destroy();
        resolve();
        return;
      }
      reject(newServiceUnavailable(`error trying to reach service: ${goDialError(err, target.host, target.port)}`));
    });
    // The client going away ends the backend request too.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  });
}
