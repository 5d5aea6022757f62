/**
 * The HTTPS server and its filter chain (upstream `server/config.go` DefaultBuildHandlerChain, in the same order:
 * panic recovery → request info → Cache-Control → authentication (401) → authorization (403) → routes).
 * One node:http2 secure server answers both HTTP/2 and HTTP/1.1.
 */
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { newBadRequest, newNotFoundPath, newTimeout, newUnauthorized } from '../apimachinery/errors.ts';
import { parseGoDuration } from '../apimachinery/duration.ts';
import { log } from '../util/log.ts';
import { authorize, forbiddenError, isPublicPath } from './filters/authorization.ts';
import { type UserInfo, userFromPeerCertificate } from './filters/authentication.ts';
import { type AdmissionChain, NO_ADMISSION } from '../admission/chain.ts';
import type { ResourceScope } from '../registry/rest/scope.ts';
import type { RequestContext } from './handlers/context.ts';
import { activeWatches } from './handlers/watch.ts';
import { MaxInflight } from './filters/maxinflight.ts';
import type { HealthChecks } from './healthz.ts';
import type { Request, Response } from './http-types.ts';
import { type RequestInfo, RequestInfoError, parseRequestInfo, plainQueryIndex } from './request-info.ts';
import { respondTooManyRequests, writeError, writeText, writeTooManyRequests } from './responsewriters.ts';
import { findScope, serveResource } from './rest-routes.ts';

/** A non-resource handler: returns true when it answered. */
export type PathHandler = (req: Request, res: Response, pathname: string, query: URLSearchParams, user: UserInfo | null) => boolean | Promise<boolean>;

export interface ServerConfig {
  bindAddress: string;
  port: number;
  tls: { cert: string; key: string; clientCA: string };
  scopes: ResourceScope[];
  /** Admission plugins every write passes (default: none). */
  admission?: AdmissionChain;
  health: HealthChecks;
  /** Discovery, OpenAPI, /version and friends, tried in order before resource routing. */
  pathHandlers: PathHandler[];
  /** Path prefixes of served API group versions: unknown paths below them get a Status 404, others plain text. */
  servedPrefixes: string[];
  /** --max-requests-inflight / --max-mutating-requests-inflight; 0 = unlimited. */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** --request-timeout: the longest a non-watch request may take (a `?timeout=` may only shorten it). */
  requestTimeoutMs: number;
}

/** What the filters in front of routing know about a request once its URL is parsed. */
interface Described {
  pathname: string;
  query: URLSearchParams;
  isPublic: boolean;
  /** The request attributes, or what parsing them threw (answered only after the authentication check). */
  info: RequestInfo | { error: unknown };
}

/** Parses the URL the way every filter sees it; throws the 400 a malformed escape gets. */
function describe(method: string, rawUrl: string): Described {
  let pathname: string;
  let query: URLSearchParams;
  // Most request targets are plain (no escapes, dot segments or fragment): WHATWG URL parsing would return them
  // unchanged, and building a URL object per request is a visible part of a small request's cost.
  const q = plainQueryIndex(rawUrl);
  if (q >= 0) {
    pathname = q === rawUrl.length ? rawUrl : rawUrl.slice(0, q);
    query = new URLSearchParams(q === rawUrl.length ? '' : rawUrl.slice(q + 1));
  } else {
    // An origin-form target is a path even when it starts with `//` (Go's ParseRequestURI), never an authority.
    let url: URL;
    try {
      url = rawUrl.startsWith('/') ? new URL(`https://localhost${rawUrl}`) : new URL(rawUrl, 'https://localhost');
    } catch {
      throw newBadRequest(`invalid request URL: ${JSON.stringify(rawUrl.slice(0, 200))}`);
    }
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      throw newBadRequest(`invalid URL escape in path: ${url.pathname}`);
    }
    query = url.searchParams;
  }
  let info: Described['info'];
  try {
    info = parseRequestInfo(method, pathname, query);
  } catch (error) {
    info = { error };
  }
  return { pathname, query, isPublic: isPublicPath(pathname, method), info };
}

/** Responses the request deadline answered with 504 while their handler was still at work. */
const timedOut = new WeakSet<Response>();

export class APIServer {
  readonly #cfg: ServerConfig;
  readonly #server: http2.Http2SecureServer;
  readonly #sockets = new Set<Socket>();
  readonly #sessions = new Set<http2.Http2Session>();
  #inflight = 0;
  #idle: (() => void) | undefined;
  /** Upstream WithMaxInFlightLimit. */
  readonly #limits: MaxInflight;
  readonly #users = new WeakMap<object, UserInfo | null>();

  constructor(cfg: ServerConfig) {
    this.#cfg = cfg;
    this.#limits = new MaxInflight(cfg.maxRequestsInflight, cfg.maxMutatingRequestsInflight);
    this.#server = http2.createSecureServer(
      {
        allowHTTP1: true,
        cert: cfg.tls.cert,
        key: cfg.tls.key,
        ca: cfg.tls.clientCA,
        requestCert: true,
        rejectUnauthorized: false,
        settings: { maxConcurrentStreams: 1000, maxHeaderListSize: 1 << 20 },
        maxSessionMemory: 64,
        maxHeaderListPairs: 256,
      },
      (req, res) => void this.#handle(req as unknown as Request, res as unknown as Response),
    );
    this.#refuseEarlyOnHTTP2();
    this.#server.on('secureConnection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    this.#server.on('session', (s: http2.Http2Session) => {
      this.#sessions.add(s);
      s.on('close', () => this.#sessions.delete(s));
    });
    this.#server.on('tlsClientError', (err) => log.V(2).info('TLS handshake error', { err: err.message }));
    // kube-apiserver accepts 1 MiB of request headers (long selectors); Node's HTTP/1.1 default is 16 KiB. The
    // http2 server hands these properties to its HTTP/1.1 fallback.
    Object.assign(this.#server, { keepAliveTimeout: 65_000, maxHeaderSize: 1 << 20 });
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#cfg.port, this.#cfg.bindAddress, () => {
        this.#server.off('error', reject);
        const addr = this.#server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : this.#cfg.port);
      });
    });
  }

  async #handle(req: Request, res: Response): Promise<void> {
    this.#inflight++;
    // The clock is read only when the request will be logged (-v=3).
    const started = log.V(3).enabled ? process.hrtime.bigint() : undefined;
    res.once('close', () => {
      if (--this.#inflight === 0) this.#idle?.();
      const v = log.V(3);
      if (v.enabled && started !== undefined) {
        v.info('HTTP', {
          verb: req.method ?? '',
          URI: req.url ?? '',
          latency: `${Number(process.hrtime.bigint() - started) / 1e6}ms`,
          userAgent: req.headers['user-agent'] ?? '',
          resp: res.statusCode,
        });
      }
    });
    try {
      await this.#chain(req, res);
    } catch (e) {
      // The deadline already answered 504: what the handler does after that reaches nobody (upstream's timeout
      // filter logs it as post-timeout activity too).
      if (timedOut.has(res)) log.V(2).info('post-timeout activity', { URI: req.url ?? '', err: e instanceof Error ? e.message : String(e) });
      else writeError(res, e);
    }
  }

  async #chain(req: Request, res: Response): Promise<void> {
    const method = req.method ?? 'GET';
    const { pathname, query, isPublic, info: parsed } = describe(method, req.url ?? '/');
    res.setHeader('cache-control', 'no-cache, private');
    const user = this.#userOf(req);
    if (!user && !isPublic) throw newUnauthorized();
    if ('error' in parsed) {
      // Upstream answers a path it cannot parse (e.g. /api/v1/watch) with a plain-text 500; nothing a client sends
      // may be a 5xx here, and no resource lives at such a path: 404.
      if (parsed.error instanceof RequestInfoError) throw newNotFoundPath();
      throw parsed.error;
    }
    const info = parsed;
    if (info.verb !== 'watch') this.#deadline(res, query);
    // Unlike upstream, members of system:masters are not exempt from the limits: the admin certificate is the one
    // identity this server authorizes today, and the limits are what keep an overloaded server answering.
    if (!isPublic && info.verb !== 'watch') {
      const release = this.#limits.acquire(info.verb);
      if (!release) {
        writeTooManyRequests(res);
        return;
      }
      res.once('close', release);
    }
    if (user && !isPublic) {
      const d = authorize(user, info);
      if (!d.allowed) throw forbiddenError(user, info, d.reason);
    }
    if (info.isResourceRequest) {
      const scope = findScope(this.#cfg.scopes, info);
      if (scope) {
        const ctx: RequestContext = { req, res, query, info, user: user!, scope, admission: this.#cfg.admission ?? NO_ADMISSION, warnings: [] };
        await serveResource(ctx);
        return;
      }
    }
    if (this.#cfg.health.handle(req, res, pathname, query)) return;
    for (const h of this.#cfg.pathHandlers) if (await h(req, res, pathname, query, user)) return;
    if (this.#cfg.servedPrefixes.some((p) => pathname === p || pathname.startsWith(p + '/'))) throw newNotFoundPath();
    writeText(res, 404, '404 page not found\n');
  }

  /**
   * The client-certificate user, computed once per connection: reading the peer certificate costs more than the rest
   * of a small request, and it cannot change within a TLS connection. HTTP/2 requests share their session's socket.
   */
  #userOf(req: Request): UserInfo | null {
    const session = (req as unknown as { stream?: { session?: http2.ServerHttp2Session } }).stream?.session;
    return this.#userOfConn(session ?? req.socket, req.socket as TLSSocket);
  }

  #userOfConn(conn: object, socket: TLSSocket): UserInfo | null {
    let user = this.#users.get(conn);
    if (user === undefined) {
      user = userFromPeerCertificate(socket);
      this.#users.set(conn, user);
    }
    return user;
  }

  /**
   * While a max-in-flight limit is reached, HTTP/2 requests it would refuse get their 429 from the raw stream, at
   * header time: no request/response objects, no body read, a prebuilt answer. Under a flood that is most requests,
   * and they are what the event loop spends its time on. Every other stream goes on to node's compat layer (the
   * 'request' handler), whose own 'stream' listener is wrapped for that; the decision is the one #chain makes,
   * and anything unusual (no user, a bad URL, `?timeout=`, Expect, CONNECT) takes the ordinary path.
   */
  #refuseEarlyOnHTTP2(): void {
    const compat = this.#server.listeners('stream');
    if (compat.length !== 1) return; // not the node layout this relies on: every request takes the ordinary path
    const forward = compat[0] as (...args: unknown[]) => void;
    this.#server.removeListener('stream', forward);
    const server = this.#server;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    // A plain function so that node's listener arguments pass on as they came (no rest array per stream).
    server.on('stream', function (this: unknown, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) {
      // At -v=3 every request is logged with its latency, which only the ordinary path does.
      if (self.#limits.saturated && !log.V(3).enabled && self.#refusesAtHeaders(stream, headers)) respondTooManyRequests(stream);
      // eslint-disable-next-line prefer-rest-params
      else forward.apply(server, arguments as unknown as unknown[]);
    });
  }

  #refusesAtHeaders(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): boolean {
    const method = headers[':method'];
    const path = headers[':path'];
    if (typeof method !== 'string' || typeof path !== 'string' || method === 'CONNECT' || headers.expect !== undefined) return false;
    const session = stream.session;
    if (!session?.socket || !this.#userOfConn(session, session.socket as TLSSocket)) return false;
    let d: Described;
    try {
      d = describe(method, path);
    } catch {
      return false;
    }
    if (d.isPublic || 'error' in d.info || d.info.verb === 'watch' || d.query.has('timeout')) return false;
    return this.#limits.full(d.info.verb);
  }

  /**
   * The request deadline (upstream WithRequestDeadline + the timeout filter): `?timeout=` (a Go duration, capped at
   * --request-timeout), answered with 504 Timeout when the handler has not answered by then.
   */
  #deadline(res: Response, query: URLSearchParams): void {
    let ms = this.#cfg.requestTimeoutMs;
    const param = query.get('timeout');
    if (param) {
      let asked: number;
      try {
        asked = parseGoDuration(param);
      } catch {
        throw newBadRequest('invalid timeout specified in the request URL');
      }
      if (asked > 0) ms = ms > 0 ? Math.min(ms, asked) : asked;
    }
    if (ms <= 0) return;
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      timedOut.add(res);
      writeError(res, newTimeout('request did not complete within the allotted timeout', 0));
    }, Math.min(ms, 2 ** 31 - 1));
    res.once('close', () => clearTimeout(timer));
  }

  /**
   * Graceful stop: refuse new connections, end watches cleanly, let in-flight requests finish (bounded by
   * `timeoutMs`), then close every connection.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const w of [...activeWatches]) w.end();
    if (this.#inflight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => (this.#idle = resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
      ]);
    }
    for (const s of this.#sessions) s.close();
    for (const s of this.#sockets) s.end();
    const force = setTimeout(() => {
      for (const s of this.#sessions) s.destroy();
      for (const s of this.#sockets) s.destroy();
    }, 1000);
    force.unref();
    await closed;
    clearTimeout(force);
  }
}
