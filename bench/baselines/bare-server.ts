/**
 * The bare baseline server (child process): node:http2 secure server with HTTP/1.1 fallback, the real server's
 * certificate and client-CA settings, and no framework, storage or validation. It answers
 *   POST /create   parse the event, set a resourceVersion, serialize it back, 201
 *   GET  /1k       a fixed ~1 KB JSON object, stringified per request
 *   GET  /buf?bytes=N   a prebuilt N-byte buffer in one `end()` (the list-streaming ceiling)
 *   GET  /watch    a chunked stream that receives every /emit
 *   POST /emit     like /create, plus what an API server adds to a created event (uid, creationTimestamp,
 *                  managedFields, defaulted fields) so its frames carry the same bytes as the real server's; then
 *                  writes `{"type":"ADDED","object":…}\n`, serialized once, to every watcher
 * Args: { dataDir, port }. Emits @@ready { port }.
 */
import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import { childArgs, emit } from '../lib/child.ts';
import { serverCreds } from '../lib/certs.ts';
import { eventBody } from '../lib/event.ts';

interface Args {
  dataDir: string;
  port: number;
}

type Req = http2.Http2ServerRequest;
type Res = http2.Http2ServerResponse;

const args = childArgs<Args>();
const creds = serverCreds(args.dataDir);
let rv = 0;
const watchers = new Set<Res>();
const buffers = new Map<number, Buffer>();

// A 1 KB event, as a GET by name would return it.
const small = JSON.parse(eventBody({ namespace: 'default', namePrefix: 'get-', size: 1024 }, 1)) as Record<string, unknown>;

function readBody(req: Req): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(res: Res, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The prebuilt buffer of a size; only the two most recent sizes are kept so memory stays bounded. */
function bufferOf(bytes: number): Buffer {
  let b = buffers.get(bytes);
  if (!b) {
    b = Buffer.alloc(bytes, 'a');
    buffers.set(bytes, b);
    while (buffers.size > 2) buffers.delete(buffers.keys().next().value!);
  }
  return b;
}

/**
 * The event as an API server returns and watches carry it: the fields the server sets (uid, creationTimestamp,
 * one managedFields entry listing the top-level fields, the defaulted deprecated fields), so a watch frame is as
 * long as the real server's for the same POST and the fan-out baseline moves the same bytes.
 */
function asServed(obj: { apiVersion?: unknown; kind?: unknown; metadata: Record<string, unknown> } & Record<string, unknown>): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const { apiVersion, kind, metadata, ...rest } = obj;
  const fieldsV1: Record<string, object> = {};
  for (const k of Object.keys(rest).sort()) fieldsV1[`f:${k}`] = {};
  return {
    kind,
    apiVersion,
    metadata: { ...metadata, uid: randomUUID(), creationTimestamp: now, managedFields: [{ manager: 'unknown', operation: 'Update', apiVersion, time: now, fieldsType: 'FieldsV1', fieldsV1 }] },
    ...rest,
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  };
}

async function handle(req: Req, res: Res): Promise<void> {
  const url = req.url ?? '/';
  if (req.method === 'POST' && (url === '/create' || url === '/emit')) {
    const obj = JSON.parse((await readBody(req)).toString('utf8')) as { metadata: Record<string, unknown> };
    obj.metadata.resourceVersion = String(++rv);
    if (url === '/create') return json(res, 201, JSON.stringify(obj));
    const served = asServed(obj);
    json(res, 201, JSON.stringify(served));
    const line = Buffer.from(JSON.stringify({ type: 'ADDED', object: served }) + '\n');
    for (const w of watchers) w.write(line);
    return;
  }
  if (url === '/1k') return json(res, 200, JSON.stringify(small));
  if (url.startsWith('/buf?bytes=')) {
    const b = bufferOf(Number(url.slice('/buf?bytes='.length)));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': b.length });
    res.end(b);
    return;
  }
  if (url === '/watch') {
    res.writeHead(200, { 'content-type': 'application/json' });
    // Send the headers now (HTTP/1.1 compat response has flushHeaders; an HTTP/2 stream sends them on respond).
    (res as unknown as { flushHeaders?: () => void }).flushHeaders?.();
    watchers.add(res);
    res.on('close', () => watchers.delete(res));
    return;
  }
  if (url === '/readyz') return json(res, 200, '"ok"');
  json(res, 404, '{}');
}

const server = http2.createSecureServer(
  {
    allowHTTP1: true,
    cert: creds.cert,
    key: creds.key,
    ca: creds.clientCA,
    requestCert: true,
    rejectUnauthorized: false,
    settings: { maxConcurrentStreams: 1000 },
    maxSessionMemory: 64,
  },
  (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) json(res, 500, '{}');
    });
  },
);
(server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 65_000;
server.listen(args.port, '127.0.0.1', () => {
  const a = server.address();
  emit('ready', { port: typeof a === 'object' && a ? a.port : args.port });
});
process.on('SIGTERM', () => process.exit(0));
