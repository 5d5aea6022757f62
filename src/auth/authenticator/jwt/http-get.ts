/**
 * The one kind of request the JWT authenticator makes: an HTTPS GET of a small JSON document (discovery, key
 * set) trusting either the issuer's `certificateAuthority` or the system roots, with upstream's 30 s client
 * timeout. node:https rather than fetch: Node 20's fetch cannot take a per-request CA.
 */
import { request } from 'node:https';

export interface GetOptions {
  /** PEM roots; undefined: the system's. */
  readonly ca?: string | undefined;
  readonly timeoutMs?: number;
}

export interface GetResponse {
  readonly status: number;
  /** Go's resp.Status, e.g. `404 Not Found`. */
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export const CLIENT_TIMEOUT_MS = 30_000;
/** A discovery document or key set is a few KiB; more is not an issuer talking. */
const MAX_BODY_BYTES = 1 << 20;

export function httpsGet(url: string, opts: GetOptions = {}): Promise<GetResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', ca: opts.ca, headers: { accept: 'application/json' }, timeout: opts.timeoutMs ?? CLIENT_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) {
          req.destroy(new Error(`Get ${JSON.stringify(url)}: response body larger than ${MAX_BODY_BYTES} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          statusText: `${res.statusCode} ${res.statusMessage ?? ''}`.trim(),
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`Get ${JSON.stringify(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on('error', (e) => reject(e.message.startsWith('Get "') ? e : new Error(`Get ${JSON.stringify(url)}: ${e.message}`)));
    req.end();
  });
}
