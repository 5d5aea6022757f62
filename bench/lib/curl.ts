/**
 * One GET by curl (C, libcurl over HTTP/2 with the admin client certificate) on a new connection, timed by curl
 * itself: how the reference measured kube-apiserver's time to first byte. A new Node process spends ~15–40 ms of
 * its first request on its own cold TLS handshake (bench/load/fetch.ts's first byte carries that), curl ~2–5 ms; the
 * figures below split what is the connection's from what is the server's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientCreds } from './certs.ts';

export interface CurlTiming {
  status: number;
  bytes: number;
  /** From curl's start to its TLS handshake's end (time_appconnect), ms. */
  connectMs: number;
  /** From curl's start to the first byte of the body's response (time_starttransfer), ms: the handshake included. */
  firstByteMs: number;
  /** From the request sent (time_pretransfer) to the first byte: the server's part of the first byte, ms. */
  serverFirstByteMs: number;
  totalMs: number;
}

export async function curlGet(origin: string, path: string, creds: ClientCreds, headers: Record<string, string> = {}): Promise<CurlTiming> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-curl-'));
  try {
    const file = (name: string, pem: string) => {
      writeFileSync(join(dir, name), pem);
      return join(dir, name);
    };
    const args = [
      '-sS',
      '--http2',
      // curl's own User-Agent gets indented JSON, built whole, as upstream pretty-prints for curl and browsers.
      '-A',
      'core-bench (curl)',
      '--cacert',
      file('ca.pem', creds.ca),
      '--cert',
      file('cert.pem', creds.cert),
      '--key',
      file('key.pem', creds.key),
      '-o',
      '/dev/null',
      '-w',
      '%{http_code} %{size_download} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} %{time_total}',
      ...Object.entries({ accept: 'application/json', ...headers }).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      `${origin}${path}`,
    ];
    const out = await new Promise<string>((resolve, reject) =>
      execFile('curl', args, { timeout: 300_000 }, (err, stdout, stderr) => (err ? reject(new Error(`curl ${path}: ${err.message}\n${stderr}`)) : resolve(stdout))),
    );
    const [code, size, appconnect, pretransfer, starttransfer, total] = out.trim().split(' ').map(Number) as [number, number, number, number, number, number];
    return { status: code, bytes: size, connectMs: appconnect * 1000, firstByteMs: starttransfer * 1000, serverFirstByteMs: (starttransfer - pretransfer) * 1000, totalMs: total * 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
