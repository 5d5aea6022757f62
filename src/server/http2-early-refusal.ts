/**
 * While a max-in-flight limit is reached, HTTP/2 requests it would refuse get their 429 from the raw stream, at
 * header time: no request/response objects, no body read, a prebuilt answer. Under a flood that is most requests,
 * and they are what the event loop spends its time on. Every other stream goes on to node's compat layer (the
 * 'request' handler), whose own 'stream' listener is wrapped for that.
 *
 * The decision is the handler chain's, asked of the same objects in the same order: the request info filter's
 * parsing, the authenticator (its cached per-connection answer), the deadline's `?timeout=` check, the limiter's
 * exemptions and counters; a request with impersonation headers is left to the chain (withImpersonation judges it
 * before the limiter). A request that any earlier filter would answer otherwise (a bad URL, no user, an
 * unparsable path, a bad `?timeout=`) takes the ordinary path, and so does anything unusual (Expect, CONNECT).
 */
import type http2 from 'node:http2';
import type { Authenticator, AuthenticatorRequest } from '../auth/authenticator/interface.ts';
import { isAnonymousUser, type UserInfo } from '../auth/authenticator/user.ts';
import { featureGates } from '../features.ts';
import { log } from '../util/log.ts';
import { closeHTTP2Session } from './filters/authentication.ts';
import { isExemptFromMaxInFlight } from './filters/maxinflight.ts';
import { requestDeadlineMs } from './filters/request-deadline.ts';
import { resolveRequestInfo } from './filters/request-info.ts';
import { newHandlerContext } from './handler.ts';
import type { HandlerChainConfig } from './handler-chain.ts';
import type { ChainMetrics } from './filters/filter-latency.ts';
import { respondTooManyRequests } from './responsewriters.ts';

export function installHTTP2EarlyRefusal(server: http2.Http2SecureServer, c: HandlerChainConfig): void {
  const compat = server.listeners('stream');
  if (compat.length !== 1) return; // not the node layout this relies on: every request takes the ordinary path
  const forward = compat[0] as (...args: unknown[]) => void;
  server.removeListener('stream', forward);
  const mitigate = featureGates.enabled('UnauthenticatedHTTP2DOSMitigation');
  // A plain function so that node's listener arguments pass on as they came (no rest array per stream).
  server.on('stream', function (this: unknown, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) {
    // At -v=3 every request is logged with its latency, which only the ordinary path does.
    const refusal = c.maxInFlight.saturated && !log.V(3).enabled ? headerTimeRefusal(c, stream, headers) : undefined;
    if (refusal) {
      respondTooManyRequests(stream);
      if (c.metrics) recordRefusal(c.metrics, headers);
      // The authentication filter would have closed an anonymous client's connection before the limiter refused it.
      if (refusal.anonymous && mitigate) closeHTTP2Session(stream.session);
    }
    // eslint-disable-next-line prefer-rest-params
    else forward.apply(server, arguments as unknown as unknown[]);
  });
}

/** Whether the handler chain would answer this stream with the max-in-flight 429. */
export function refusesAtHeaders(c: HandlerChainConfig, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): boolean {
  return headerTimeRefusal(c, stream, headers) !== undefined;
}

/** The 429 the chain would answer, with whether its user is anonymous; undefined when it would answer otherwise. */
function headerTimeRefusal(c: HandlerChainConfig, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): { anonymous: boolean } | undefined {
  const method = headers[':method'];
  const path = headers[':path'];
  if (typeof method !== 'string' || typeof path !== 'string' || method === 'CONNECT' || headers.expect !== undefined) return undefined;
  const socket = stream.session?.socket;
  if (!socket) return undefined;
  const ctx = newHandlerContext();
  try {
    resolveRequestInfo(ctx, method, path);
  } catch {
    return undefined; // withRequestInfo's 400
  }
  const info = ctx.requestInfo;
  if (!info || isExemptFromMaxInFlight(info, ctx.publicPath)) return undefined;
  try {
    requestDeadlineMs(ctx.query, c.requestTimeoutMs);
  } catch {
    return undefined; // withRequestDeadline's 400
  }
  // Impersonation comes before the limit (its 400 and 403 first): such a request takes the ordinary path.
  for (const name in headers) if (name.startsWith('impersonate-')) return undefined;
  if (!c.maxInFlight.full(info.verb)) return undefined;
  // Asked last: it is the one question that might need I/O.
  const user = userAtOnce(c.authenticator, { headers, socket, stream });
  return user ? { anonymous: isAnonymousUser(user) } : undefined;
}

/**
 * The user the authenticator names without waiting (x509 does, from its per-connection cache). An answer that needs
 * I/O sends the request the ordinary way, which asks again; this one is dropped.
 */
function userAtOnce(authenticator: Authenticator, req: AuthenticatorRequest): UserInfo | null {
  const r = authenticator.authenticate(req);
  if (r instanceof Promise) {
    r.catch(ignore);
    return null;
  }
  return r.user;
}

function ignore(): void {}

/** The refusal counted as the filter counts it; the attributes are parsed again only on this (rare) path. */
function recordRefusal(metrics: ChainMetrics, headers: http2.IncomingHttpHeaders): void {
  const ctx = newHandlerContext();
  resolveRequestInfo(ctx, headers[':method'] as string, headers[':path'] as string);
  const ct = headers['content-type'];
  if (ctx.requestInfo) metrics.tooManyRequests(headers[':method'] as string, typeof ct === 'string' ? ct : undefined, ctx.requestInfo, ctx.query);
}
