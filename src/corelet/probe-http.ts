/**
 * The httpGet probe (upstream `pkg/probe/http`): a GET whose status 200–399 is success. Redirects are followed as
 * kubelet's client follows them: to the same host, at most 10; a redirect to another host is not followed, and the
 * 3xx it stopped at is a success with a warning. At most 10 KiB of the body is read; the timeout covers the whole
 * exchange, redirects included.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { MAX_PROBE_OUTPUT, dialError, type ProbeOutcome } from './probe-result.ts';
import { BINARY_VERSION } from '../version.ts';

/** kubelet's prober user agent (`kube-probe/<major>.<minor>`), with the project's vendor rename. */
export const PROBE_USER_AGENT = `core-probe/${BINARY_VERSION.major}.${BINARY_VERSION.minor}`;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

export interface HttpProbeTarget {
  url: URL;
  headers: Array<{ name: string; value: string }>;
  timeoutMs: number;
}

function get(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<{ res: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      // Probes check the container, not its certificate (kubelet's prober skips verification), and share no
      // connections (DisableKeepAlives).
      { method: 'GET', headers, signal, agent: false, rejectUnauthorized: false },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          if (size >= MAX_PROBE_OUTPUT) return;
          chunks.push(d);
          size += d.length;
          // Enough is read: the rest of a large body is not waited for.
          if (size >= MAX_PROBE_OUTPUT) res.destroy();
        });
        const done = () => resolve({ res, body: Buffer.concat(chunks).subarray(0, MAX_PROBE_OUTPUT).toString('utf8') });
        res.once('end', done);
        res.once('close', done);
        res.once('error', (e) => (size >= MAX_PROBE_OUTPUT ? done() : reject(e)));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

export async function httpProbe(t: HttpProbeTarget): Promise<ProbeOutcome> {
  const headers: Record<string, string> = {};
  for (const h of t.headers) headers[h.name] = h.value;
  const has = (n: string) => Object.keys(headers).some((k) => k.toLowerCase() === n);
  if (!has('user-agent')) headers['User-Agent'] = PROBE_USER_AGENT;
  if (!has('accept')) headers.Accept = '*/*';
  const signal = AbortSignal.timeout(t.timeoutMs);
  let url = t.url;
  const firstHost = t.url.hostname;
  for (let hops = 0; ; hops++) {
    let res: IncomingMessage;
    let body: string;
    try {
      ({ res, body } = await get(url, headers, signal));
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const why = signal.aborted
        ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)'
        : err.code && err.syscall === 'connect'
          ? dialError(`${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`, err)
          : err.message;
      return { result: 'failure', output: `Get ${JSON.stringify(url.href)}: ${why}` };
    }
    const code = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(code) && location) {
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return { result: 'failure', output: `Get ${JSON.stringify(url.href)}: failed to parse Location header ${JSON.stringify(location)}` };
      }
      // Only redirects within the same host are followed; the response that points elsewhere is the answer.
      if (next.hostname === firstHost) {
        if (hops + 1 >= MAX_REDIRECTS) return { result: 'failure', output: `Get ${JSON.stringify(next.href)}: stopped after ${MAX_REDIRECTS} redirects` };
        url = next;
        continue;
      }
    }
    if (code >= 200 && code < 400) {
      if (code >= 300) return { result: 'warning', output: `Probe terminated redirects, Response body: ${body}` };
      return { result: 'success', output: body };
    }
    return { result: 'failure', output: `HTTP probe failed with statuscode: ${code}` };
  }
}
