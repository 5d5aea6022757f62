/**
 * The authentication filter (upstream `endpoints/filters/authentication.go`): asks the authenticator who sent the
 * request and puts the user in the context; a request without a user is answered 401 (with anonymous requests
 * enabled, the authenticator names `system:anonymous` unless a credential was refused). Once a request is
 * authenticated, its credentials are removed: the `Authorization` header and every front-proxy header (upstream's
 * standard X-Remote-* ones and the configured ones), so that no handler can mistake a client's own headers for a
 * proxy's or reuse a token.
 *
 * HTTP/2 is expensive to serve and easy to abuse (CVE-2023-44487, CVE-2023-39325): with the
 * UnauthenticatedHTTP2DOSMitigation gate (on by default, as upstream since 1.29), a connection that carries a request
 * answered 401 or made anonymously is limited to the requests it has open: the server sends GOAWAY at once and
 * closes the connection when they are done, so that an unauthenticated client gets no more than HTTP/1.1 without
 * keep-alive would give it. Upstream does this by setting `Connection: close` on the response, which Go's HTTP/2
 * server turns into a graceful shutdown of the connection; http2-goaway.ts does the same here. Requests
 * with a user are never affected, whatever their credential; HTTP/1.1 connections neither.
 */
import { newUnauthorized } from '../../apimachinery/errors.ts';
import { type AuthenticationResult, type Authenticator, takeAuthenticationWarnings } from '../../auth/authenticator/interface.ts';
import { type RequestHeaderNames, requestHeaderNamesToStrip } from '../../auth/authenticator/request-header.ts';
import type { Http2Session } from 'node:http2';
import { isAnonymousUser } from '../../auth/authenticator/user.ts';
import { featureGates } from '../../features.ts';
import { log } from '../../util/log.ts';
import { goAway } from '../http2-goaway.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import { warningHeaders } from '../handlers/context.ts';
import type { Request, Response } from '../http-types.ts';
import type { AuthenticationRecorder, FilterLatency } from './filter-latency.ts';

export interface AuthenticationFilterOptions {
  latency?: FilterLatency | undefined;
  /** authentication_attempts and friends. */
  metrics?: AuthenticationRecorder | undefined;
  /** The configured front-proxy headers (the standard ones are always removed). */
  requestHeaders?: RequestHeaderNames | undefined;
  /** Close HTTP/2 connections of unauthenticated and anonymous requests; default: the gate's state at build time. */
  unauthenticatedHTTP2Mitigation?: boolean | undefined;
}

/** The HTTP/2 session a request came on (node's compat request has its stream), or undefined for HTTP/1.1. */
function http2Session(req: Request): Http2Session | undefined {
  return req.httpVersionMajor === 2 ? (req as unknown as { stream?: { session?: Http2Session } }).stream?.session : undefined;
}

/** GOAWAY now, then close once the streams in flight (this request's included) are answered. */
export function closeHTTP2Session(session: Http2Session | undefined): void {
  goAway(session);
}

export function withAuthentication(handler: Handler, authenticator: Authenticator, opts: AuthenticationFilterOptions = {}): Handler {
  const { latency, metrics } = opts;
  const strip = requestHeaderNamesToStrip(opts.requestHeaders);
  const mitigate = opts.unauthenticatedHTTP2Mitigation ?? featureGates.enabled('UnauthenticatedHTTP2DOSMitigation');
  function authenticated(r: AuthenticationResult, req: Request, res: Response, ctx: HandlerContext, started: number): Promise<void> {
    const now = latency || metrics ? performance.now() : 0;
    // Upstream tracks this filter up to the next handler or the 401 alike.
    if (latency) latency.filterLatency('authentication', (now - started) / 1000);
    if (metrics) metrics.authenticated(r.user ? 'success' : r.error ? 'error' : 'failure', (now - started) / 1000, r.user?.name);
    const warnings = takeAuthenticationWarnings(req);
    if (warnings) res.setHeader('warning', warningHeaders(warnings));
    if (!r.user) {
      // Upstream logs this as an error; at the default verbosity that would be a line per request of a client
      // whose certificate has expired, and the client learns nothing from it either way.
      if (r.error) log.V(2).info('Unable to authenticate the request', { err: r.error.message });
      if (mitigate) closeHTTP2Session(http2Session(req));
      throw newUnauthorized();
    }
    if (mitigate && isAnonymousUser(r.user)) closeHTTP2Session(http2Session(req));
    removeCredentials(req, strip);
    ctx.user = r.user;
    return handler(req, res, ctx);
  }
  return function authentication(req, res, ctx) {
    const started = latency || metrics ? performance.now() : 0;
    const r = authenticator.authenticate(req);
    // A cached answer (x509's, per connection) is used at once: no promise hop on every request.
    return r instanceof Promise ? r.then((answer) => authenticated(answer, req, res, ctx, started)) : authenticated(r, req, res, ctx, started);
  };
}

/**
 * Deletes the credential headers from the request: from `headers` and from the raw header lines, which node derives
 * `headersDistinct` from. Costs a scan of the raw lines only when one of them is there.
 */
function removeCredentials(req: Request, strip: { exact: Set<string>; prefixes: string[] }): void {
  const headers = req.headers as Record<string, unknown>;
  let found = false;
  if (headers.authorization !== undefined) {
    delete headers.authorization;
    found = true;
  }
  for (const name in headers) {
    if (strip.exact.has(name) || hasPrefix(name, strip.prefixes)) {
      delete headers[name];
      found = true;
    }
  }
  if (!found) return;
  const raw = req.rawHeaders as string[] | undefined;
  if (!Array.isArray(raw)) return;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    const name = raw[i]!.toLowerCase();
    if (name === 'authorization' || strip.exact.has(name) || hasPrefix(name, strip.prefixes)) raw.splice(i, 2);
  }
}

function hasPrefix(name: string, prefixes: string[]): boolean {
  for (const p of prefixes) if (name.startsWith(p)) return true;
  return false;
}
