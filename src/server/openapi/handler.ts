/**
 * Serves the OpenAPI documents: `/openapi/v3` (index), `/openapi/v3/<gv path>` (hash-addressed, immutable when
 * the hash matches), `/openapi/v2` (JSON or gnostic protobuf by Accept), `/swagger-2.0.0.pb-v1` and
 * `/swagger.json`. Every document and its bytes are computed once, at construction.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { newMethodNotAllowed, newNotAcceptable } from '../../apimachinery/errors.ts';
import type { OpenAPIResource } from './types.ts';
import { swaggerV2, swaggerV2Protobuf } from './v2.ts';
import { openAPIV3Document, openAPIV3Index } from './v3.ts';

const JSON_TYPE = 'application/json';
const EMPTY = Buffer.alloc(0);
export const PROTO_V2_TYPES = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
];
/** Answers always carry the dotted form: Go's mime parser (kubectl) rejects the `@` of the request form. */
export const PROTO_V2_RESPONSE_TYPE = PROTO_V2_TYPES[1]!;

interface Served {
  body: Buffer;
  contentType: string;
  /** Upper-case hex SHA-512 of the body, as kube names v3 documents. */
  hash: string;
}

interface Response {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: Buffer): unknown;
}

function served(body: Buffer, contentType: string): Served {
  return { body, contentType, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/**
 * The first offered media type that the Accept header admits, in the header's order (q=0 ranges skipped);
 * no Accept header means the first offer. Throws 406 when nothing matches.
 */
export function negotiate(accept: string | undefined, offered: string[]): string {
  if (!accept || accept.trim() === '') return offered[0]!;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (type === '*/*') return offered[0]!;
    const hit = offered.find((o) => o === type || (type.endsWith('/*') && o.startsWith(type.slice(0, -1))));
    if (hit) return hit;
  }
  throw newNotAcceptable(offered);
}

function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === etag;
  });
}

export class OpenAPIService {
  private readonly index: Served;
  /** By group version path: `apis/events.cluster.io/v1`, `api/v1`. */
  private readonly v3 = new Map<string, Served>();
  private readonly v2Json: Served;
  private readonly v2Proto: Served;

  constructor(resources: OpenAPIResource[]) {
    const groupVersions = new Set(resources.map((r) => (r.info.group ? `${r.info.group}/${r.info.version}` : r.info.version)));
    for (const gv of groupVersions) {
      const path = gv.includes('/') ? `apis/${gv}` : `api/${gv}`;
      this.v3.set(path, served(Buffer.from(JSON.stringify(openAPIV3Document(gv, resources))), JSON_TYPE));
    }
    const index = openAPIV3Index([...this.v3].map(([path, s]) => ({ path, hash: s.hash })));
    this.index = served(Buffer.from(JSON.stringify(index)), JSON_TYPE);
    const swagger = swaggerV2(resources);
    this.v2Json = served(Buffer.from(JSON.stringify(swagger)), JSON_TYPE);
    this.v2Proto = served(swaggerV2Protobuf(swagger), PROTO_V2_RESPONSE_TYPE);
  }

  /**
   * Answers the request when `pathname` is one of the OpenAPI paths and returns true; returns false otherwise
   * (including unknown group versions, left to the caller's 404). Throws a StatusError (405 for methods other than
   * GET/HEAD, 406 when no offered media type is acceptable) for the caller's error writer.
   */
  handle(
    req: IncomingMessage | Http2ServerRequest,
    res: ServerResponse | Http2ServerResponse,
    pathname: string,
    query: URLSearchParams,
  ): boolean {
    const target = this.route(pathname);
    if (!target) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') throw newMethodNotAllowed();
    const accept = req.headers['accept'];
    const out: Response = res;
    const headers: Record<string, string> = {};
    let doc: Served;

    if (target.kind === 'index') {
      negotiate(accept, [JSON_TYPE]);
      doc = this.index;
      headers['Cache-Control'] = 'no-cache, private';
    } else if (target.kind === 'v3') {
      negotiate(accept, [JSON_TYPE]);
      doc = target.doc;
      const hash = query.get('hash');
      if (hash !== null && hash !== doc.hash) {
        // A stale (or made-up) hash: send the client to the current document.
        out.statusCode = 301;
        out.setHeader('Location', `${pathname}?hash=${doc.hash}`);
        out.setHeader('Content-Length', '0');
        out.end(EMPTY);
        return true;
      }
      if (hash !== null) {
        headers['Cache-Control'] = 'public, immutable';
        headers['Expires'] = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
      } else {
        headers['Cache-Control'] = 'no-cache, private';
      }
    } else {
      const type = target.kind === 'v2' ? negotiate(accept, [JSON_TYPE, ...PROTO_V2_TYPES]) : target.kind === 'proto' ? PROTO_V2_TYPES[0]! : JSON_TYPE;
      doc = type === JSON_TYPE ? this.v2Json : this.v2Proto;
      headers['Vary'] = 'Accept';
    }

    const etag = `"${doc.hash}"`;
    headers['ETag'] = etag;
    for (const [k, v] of Object.entries(headers)) out.setHeader(k, v);
    if (etagMatches(req.headers['if-none-match'], etag)) {
      out.statusCode = 304;
      out.end(EMPTY);
      return true;
    }
    out.statusCode = 200;
    out.setHeader('Content-Type', doc.contentType);
    out.setHeader('Content-Length', String(doc.body.length));
    out.end(req.method === 'HEAD' ? EMPTY : doc.body);
    return true;
  }

  private route(pathname: string): { kind: 'index' | 'v2' | 'proto' | 'json' } | { kind: 'v3'; doc: Served } | undefined {
    switch (pathname) {
      case '/openapi/v3':
      case '/openapi/v3/':
        return { kind: 'index' };
      case '/openapi/v2':
        return { kind: 'v2' };
      case '/swagger-2.0.0.pb-v1':
        return { kind: 'proto' };
      case '/swagger.json':
        return { kind: 'json' };
    }
    if (!pathname.startsWith('/openapi/v3/')) return undefined;
    const doc = this.v3.get(pathname.slice('/openapi/v3/'.length));
    return doc ? { kind: 'v3', doc } : undefined;
  }
}
