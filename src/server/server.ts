/**
 * The HTTPS server: one node:http2 secure server answers both HTTP/2 and HTTP/1.1, every request through the
 * handler chain (handler-chain.ts); connections are tracked for a graceful shutdown.
 */
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { Authenticator } from '../auth/authenticator/interface.ts';
import type { Authorizer } from '../auth/authorizer/interface.ts';
import type { RequestHeaderNames } from '../auth/authenticator/request-header.ts';
import type { AuthenticationRecorder } from './filters/filter-latency.ts';
import { log } from '../util/log.ts';
import { type APIHandlerConfig, newAPIHandler } from './api-handler.ts';
import { MaxInflight } from './filters/maxinflight.ts';
import { type Handler, newHandlerContext } from './handler.ts';
import { buildHandlerChain, type HandlerChainConfig } from './handler-chain.ts';
import { activeWatches } from './handlers/watch.ts';
import { installHTTP2EarlyRefusal } from './http2-early-refusal.ts';
import { goAway, trackOpenStreams } from './http2-goaway.ts';
import type { Request, Response } from './http-types.ts';

export interface ServerConfig extends APIHandlerConfig {
  bindAddress: string;
  port: number;
  tls: { cert: string; key: string; clientCA: string };
  /** Who sent a request (kube-apiserver: request header, x509, tokens, then anonymous). */
  authenticator: Authenticator;
  /** authentication_attempts and friends (absent: not recorded). */
  authenticationMetrics?: AuthenticationRecorder;
  /** authorization_attempts_total and authorization_duration_seconds around the authorization filter's decisions. */
  recordAuthorization?: (authorizer: Authorizer) => Authorizer;
  /** The configured front-proxy headers (`--requestheader-*-headers`), removed from authenticated requests. */
  requestHeaders?: RequestHeaderNames;
  /** Whether its user may do it (kube-apiserver: system:masters, then --authorization-mode). */
  authorizer: Authorizer;
  /** --max-requests-inflight / --max-mutating-requests-inflight; 0 = unlimited. */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** --request-timeout: the longest a non-watch request may take (a `?timeout=` may only shorten it). */
  requestTimeoutMs: number;
}

/**
 * HTTP/2 flow-control windows for request bodies. Node's defaults are 64 KiB per stream and 64 KiB per connection,
 * and the connection's window is shared by every stream of a client: a few large bodies uploading at once on one
 * connection (a client multiplexing big creates) then crawl at 64 KiB per turn of the event loop, and under load a
 * request misses its deadline while its body trickles in (the fuzz run found one). Upstream gives each stream 256 KiB
 * and the connection that times its stream limit (250: 62.5 MiB); here the connection gets 16 MiB, within node's
 * per-session memory limit (64 MiB) that a larger promise could trip. A window only lets a client send ahead of the
 * server's reading: handlers read a body at once or the stream is reset, so it does not hold memory by itself.
 */
const STREAM_WINDOW = 256 * 1024;
const CONNECTION_WINDOW = 16 * 1024 * 1024;

function setConnectionWindow(s: http2.Http2Session): void {
  try {
    s.setLocalWindowSize(CONNECTION_WINDOW);
  } catch {
    // a session that already closed
  }
}

export class APIServer {
  readonly #cfg: ServerConfig;
  readonly #server: http2.Http2SecureServer;
  readonly #sockets = new Set<Socket>();
  readonly #sessions = new Set<http2.Http2Session>();
  readonly #handler: Handler;
  #inflight = 0;
  #idle: (() => void) | undefined;
  /** The in-flight counters of --max-requests-inflight and --max-mutating-requests-inflight (read by metrics). */
  readonly maxInFlight: MaxInflight;

  constructor(cfg: ServerConfig) {
    this.#cfg = cfg;
    this.maxInFlight = new MaxInflight(cfg.maxRequestsInflight, cfg.maxMutatingRequestsInflight);
    const chain: HandlerChainConfig = {
      authenticator: cfg.authenticator,
      authorizer: cfg.authorizer,
      maxInFlight: this.maxInFlight,
      requestTimeoutMs: cfg.requestTimeoutMs,
      ...(cfg.requestMetrics ? { metrics: cfg.requestMetrics } : {}),
      ...(cfg.tracer ? { tracer: cfg.tracer } : {}),
      ...(cfg.authenticationMetrics ? { authenticationMetrics: cfg.authenticationMetrics } : {}),
      ...(cfg.recordAuthorization ? { recordAuthorization: cfg.recordAuthorization } : {}),
      ...(cfg.requestHeaders ? { requestHeaders: cfg.requestHeaders } : {}),
    };
    this.#handler = buildHandlerChain(newAPIHandler(cfg), chain);
    this.#server = http2.createSecureServer(
      {
        allowHTTP1: true,
        cert: cfg.tls.cert,
        key: cfg.tls.key,
        ca: cfg.tls.clientCA,
        requestCert: true,
        rejectUnauthorized: false,
        settings: { maxConcurrentStreams: 1000, maxHeaderListSize: 1 << 20, initialWindowSize: STREAM_WINDOW },
        maxSessionMemory: 64,
        maxHeaderListPairs: 256,
      },
      (req, res) => void this.#handle(req as unknown as Request, res as unknown as Response),
    );
    installHTTP2EarlyRefusal(this.#server, chain);
    this.#server.on('secureConnection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    this.#server.on('session', (s: http2.Http2Session) => {
      // See CONNECTION_WINDOW. Set once the session's socket is up (node refuses it on a session still connecting).
      if (s.connecting) s.once('connect', () => setConnectionWindow(s));
      else setConnectionWindow(s);
      this.#sessions.add(s);
      trackOpenStreams(s);
      s.on('close', () => this.#sessions.delete(s));
    });
    this.#server.on('tlsClientError', (err) => {
      cfg.requestMetrics?.tlsHandshakeError();
      log.V(2).info('TLS handshake error', { err: err.message });
    });
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

  /** Counts the request while its response is open (shutdown waits for them), and runs it through the chain. */
  #handle(req: Request, res: Response): Promise<void> {
    this.#inflight++;
    res.once('close', this.#requestDone);
    return this.#handler(req, res, newHandlerContext());
  }

  readonly #requestDone = (): void => {
    if (--this.#inflight === 0) this.#idle?.();
  };

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
    for (const s of this.#sessions) goAway(s, 0);
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
