/**
 * The refusal floor for scenario 8 (child process): a bare node:http2 secure server, same certificate and client-CA
 * settings and stream limit as the real server, that answers EVERY request at header time with a prebuilt 429
 * Status and `Retry-After: 1`, reading nothing else. Under the same flood its 429 latency is the least any Node
 * server on this machine can show, so the server's 429 p99 is also reported as a ratio to it.
 * Args: { dataDir, port }. Emits @@ready { port }.
 */
import http2 from 'node:http2';
import { childArgs, emit } from '../lib/child.ts';
import { serverCreds } from '../lib/certs.ts';

const args = childArgs<{ dataDir: string; port: number }>();
const creds = serverCreds(args.dataDir);
const body = Buffer.from('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}\n');
const headers = { ':status': 429, 'content-type': 'application/json', 'retry-after': '1', 'content-length': body.length };

const server = http2.createSecureServer({ allowHTTP1: true, cert: creds.cert, key: creds.key, ca: creds.clientCA, requestCert: true, rejectUnauthorized: false, settings: { maxConcurrentStreams: 1000 } }, (_req, res) => {
  // HTTP/1.1 requests arrive here (HTTP/2 streams are answered in 'stream' below and never reach this handler).
  res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'content-length': body.length });
  res.end(body);
});
// Answer HTTP/2 streams before the compatibility layer builds request/response objects: the cheapest refusal.
server.removeAllListeners('stream');
server.on('stream', (stream: http2.ServerHttp2Stream) => {
  stream.on('error', () => undefined);
  stream.respond(headers);
  stream.end(body);
});
server.listen(args.port, '127.0.0.1', () => {
  const a = server.address();
  emit('ready', { port: typeof a === 'object' && a ? a.port : args.port });
});
process.on('SIGTERM', () => process.exit(0));
