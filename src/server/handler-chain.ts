/**
 * The one place where the filters are put around the API handler (upstream `server/config.go`
 * DefaultBuildHandlerChain), inside-out, so that a request meets them in this order:
 *
 *   withPanicRecovery      whatever is thrown becomes the answer (a StatusError its Status, else a logged 500)
 *   withHTTPLogging        the -v=3 request log (outside request info, so a malformed URL's 400 is logged too)
 *     latency trackers go here
 *   withRequestInfo        URL and request attributes; 400 for a malformed target
 *   withCacheControl       `Cache-Control: no-cache, private`
 *     HSTS goes here (the shutdown wait group is APIServer's count, around the whole chain)
 *   withAuthentication     the user (system:anonymous without credentials, when enabled), or 401; removes the
 *                          credential headers (Authorization, front-proxy headers) once authenticated
 *   withTracing            only with --tracing-config-file: the request's server span, continuing the caller's
 *                          trace only for system:masters and system:monitoring (hence after authentication, as
 *                          upstream); authentication is timed by a wrapper and reported as the span's child,
 *                          and the authorizer is wrapped to report its decision in a child span
 *     audit goes here, with failed-authentication audit beside the 401
 *   withRequestDeadline    404 for a path its attributes could not be parsed from, 400 for a bad `?timeout=`;
 *                          504 when the handler has not answered in time
 *   withImpersonation      Impersonate-User/-Group/-Uid/-Extra-*: each authorized with the verb impersonate (403
 *                          otherwise, 400 for groups without a user); the rest of the chain sees the impersonated user
 *   withMaxInFlightLimit   429 over --max-requests-inflight / --max-mutating-requests-inflight (priority and
 *                          fairness would take its place)
 *   withAuthorization      403 unless allowed
 *   API handler            routes (api-handler.ts)
 *
 * Metrics of authentication and authorization belong inside their filters, as upstream records them.
 *
 * One difference from upstream's order, kept on purpose: upstream sets the deadline (and answers a bad `?timeout=`
 * with 400) before authentication, and answers an unparsable path with 500 in the request info filter. Here both
 * come after authentication, so a client without credentials gets 401 whatever its URL says, and the answers go
 * 400 (URL), 401, 404 and 400 (`?timeout=`), impersonation's 400 and 403, 429, 403, as they always have here
 * (README: In-flight limits). The cost: the deadline does not bound authentication, which matters once an
 * authenticator waits on a webhook.
 *
 * The HTTP/2 early refusal (http2-early-refusal.ts) asks the same objects, in the same order, before a request
 * reaches this chain. What it refuses never meets withTracing, so those 429s have no span (upstream traces them).
 */
import type { Tracer } from '@opentelemetry/api';
import type { Authenticator } from '../auth/authenticator/interface.ts';
import type { Authorizer } from '../auth/authorizer/interface.ts';
import { withAuthentication } from './filters/authentication.ts';
import { withAuthorization } from './filters/authorization.ts';
import { withCacheControl } from './filters/cache-control.ts';
import type { AuthenticationRecorder, ChainMetrics } from './filters/filter-latency.ts';
import type { RequestHeaderNames } from '../auth/authenticator/request-header.ts';
import { withHTTPLogging } from './filters/http-logging.ts';
import { withImpersonation } from './filters/impersonation.ts';
import { type MaxInflight, withMaxInFlightLimit } from './filters/maxinflight.ts';
import { withPanicRecovery } from './filters/panic-recovery.ts';
import { withRequestDeadline } from './filters/request-deadline.ts';
import { withRequestInfo } from './filters/request-info.ts';
import { timedAuthenticator, tracedAuthorizer, withTracing } from './filters/tracing.ts';
import type { Handler } from './handler.ts';

/** The objects the filters consult; the early HTTP/2 refusal consults the same ones. */
export interface HandlerChainConfig {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** The in-flight counters (upstream WithMaxInFlightLimit's channels). */
  maxInFlight: MaxInflight;
  /** --request-timeout in ms (0: none). */
  requestTimeoutMs: number;
  /** Where the filters report latencies and self-defense outcomes (absent: nowhere). */
  metrics?: ChainMetrics;
  /** Set when tracing is on; absent, the chain holds no tracing code at all. */
  tracer?: Tracer;
  /** Where the authentication filter reports its attempts (absent: nowhere). */
  authenticationMetrics?: AuthenticationRecorder;
  /** Wraps the authorization filter's authorizer to count its decisions (not impersonation's checks, as upstream). */
  recordAuthorization?: (authorizer: Authorizer) => Authorizer;
  /** The configured front-proxy headers, removed from every authenticated request with upstream's standard ones. */
  requestHeaders?: RequestHeaderNames;
}

export function buildHandlerChain(apiHandler: Handler, c: HandlerChainConfig): Handler {
  const { tracer } = c;
  let handler = apiHandler;
  const authorizer = tracer ? tracedAuthorizer(c.authorizer) : c.authorizer;
  handler = withAuthorization(handler, c.recordAuthorization ? c.recordAuthorization(authorizer) : authorizer, c.metrics);
  handler = withMaxInFlightLimit(handler, c.maxInFlight, c.metrics);
  handler = withImpersonation(handler, authorizer, c.metrics);
  handler = withRequestDeadline(handler, c.requestTimeoutMs, c.metrics);
  if (tracer) handler = withTracing(handler, tracer);
  handler = withAuthentication(handler, tracer ? timedAuthenticator(c.authenticator) : c.authenticator, { latency: c.metrics, metrics: c.authenticationMetrics, requestHeaders: c.requestHeaders });
  handler = withCacheControl(handler);
  handler = withRequestInfo(handler);
  handler = withHTTPLogging(handler);
  handler = withPanicRecovery(handler);
  return handler;
}
