/**
 * The tracing filter (upstream `endpoints/filters/traces.go`, which wraps otelhttp): one server span per request,
 * named after the route (`GET /apis/events.cluster.io/v1/namespaces/{:namespace}/events/{:name}`; the method
 * alone for non-resource paths), with the HTTP attributes, `http.target` and `audit-id`, started at the request's
 * arrival and ended when its response closes. The rest of the chain runs inside it, so the spans of
 * authorization, the handler, storage and serialization are its children.
 *
 * An incoming W3C `traceparent` is only trusted from `system:masters` and `system:monitoring`: for anyone else
 * the request is from a public endpoint, and the span starts a new trace that merely links to the caller's, so an
 * outsider can neither force sampling nor graft spans into someone else's trace. That needs the user, hence the
 * place just inside authentication; authentication itself is timed by the authenticator wrapper below and
 * reported as a child span once the server span exists.
 *
 * Installed only when tracing is on (handler-chain.ts); nothing here runs otherwise.
 */
import { randomUUID } from 'node:crypto';
import {
  type Attributes,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import type { AuthenticationResult, Authenticator, AuthenticatorRequest } from '../../auth/authenticator/interface.ts';
import { GROUP_MASTERS, GROUP_MONITORING, type UserInfo } from '../../auth/authenticator/user.ts';
import type { Attributes as AuthorizerAttributes, AuthorizationResult, Authorizer } from '../../auth/authorizer/interface.ts';
import { auditID, endWithError, startChildSpan, withAuditID } from '../../tracing/tracing.ts';
import type { Handler } from '../handler.ts';
import type { Request } from '../http-types.ts';
import type { RequestInfo } from '../request-info.ts';

/** Upstream truncates long audit IDs in span attributes to this many bytes. */
const MAX_AUDIT_ID_LENGTH = 64;

export function withTracing(handler: Handler, tracer: Tracer): Handler {
  return function tracing(req, res, ctx) {
    const incoming = propagation.extract(ROOT_CONTEXT, req.headers);
    const remote = trace.getSpanContext(incoming);
    const trusted = isPrivileged(ctx.user);
    // A public endpoint: a new root whose only tie to the caller's trace is a link.
    const links: Link[] | undefined = !trusted && remote && trace.isSpanContextValid(remote) ? [{ context: remote }] : undefined;
    const id = requestAuditID(req);
    const span = tracer.startSpan(
      spanName(req.method ?? 'GET', ctx.requestInfo),
      {
        kind: SpanKind.SERVER,
        // Upstream moves the span's start to the arrival time its latency metrics count from.
        startTime: performance.timeOrigin + ctx.receivedAt,
        root: !trusted,
        ...(links ? { links } : {}),
        attributes: requestAttributes(req, ctx.pathname, id),
      },
      incoming,
    );
    const spanContext = withAuditID(trace.setSpan(incoming, span), id);
    reportAuthentication(tracer, req, spanContext, id);
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    return context.with(spanContext, handler, undefined, req, res, ctx);
  };
}

/** Whether the caller may continue its own trace here (upstream's notSystemPrivilegedGroup, negated). */
export function isPrivileged(user: UserInfo | null): boolean {
  return !!user && user.groups.some((g) => g === GROUP_MASTERS || g === GROUP_MONITORING);
}

/** The server span's name: the route with its variable parts as placeholders, or the method alone. */
export function spanName(method: string, info: RequestInfo | undefined): string {
  if (!info || !info.isResourceRequest) return method;
  let name = `/${info.apiPrefix}`;
  if (info.apiGroup) name += `/${info.apiGroup}`;
  name += `/${info.apiVersion}`;
  if (info.namespace) name += '/namespaces/{:namespace}';
  name += `/${info.resource}`;
  if (info.name) name += '/{:name}';
  if (info.subresource) name += `/${info.subresource}`;
  return `${method} ${name}`;
}

/**
 * The request's audit ID: the client's `Audit-ID` header when it sent one (upstream's WithAuditInit keeps it), else
 * a new UUID. This server keeps no audit log yet, so the ID lives only in the spans.
 */
function requestAuditID(req: Request): string {
  const given = req.headers['audit-id'];
  const id = (Array.isArray(given) ? given[0] : given)?.trim();
  return id ? id.slice(0, MAX_AUDIT_ID_LENGTH) : randomUUID();
}

/** The HTTP server attributes of the stable semantic conventions, plus `http.target` and `audit-id`. */
function requestAttributes(req: Request, path: string, id: string): Attributes {
  const a: Attributes = {
    'http.request.method': req.method ?? 'GET',
    'url.scheme': 'https',
    'url.path': path,
    'http.target': req.url ?? '',
    'network.protocol.name': 'http',
    'network.protocol.version': req.httpVersion === '2.0' ? '2' : req.httpVersion,
    'audit-id': id,
  };
  const q = (req.url ?? '').indexOf('?');
  if (q >= 0) a['url.query'] = req.url!.slice(q + 1);
  const authority = (req.headers[':authority'] as string | undefined) ?? req.headers.host;
  if (authority) {
    const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(authority);
    if (m) {
      a['server.address'] = m[1]!;
      if (m[2]) a['server.port'] = Number(m[2]);
    }
  }
  const socket = req.socket as { remoteAddress?: string; remotePort?: number } | undefined;
  if (socket?.remoteAddress) {
    a['network.peer.address'] = socket.remoteAddress;
    a['client.address'] = socket.remoteAddress;
  }
  if (socket?.remotePort) a['network.peer.port'] = socket.remotePort;
  const ua = req.headers['user-agent'];
  if (ua) a['user_agent.original'] = ua;
  return a;
}

// ---- authentication: timed before the server span exists, reported as its child ----

interface AuthenticationTiming {
  start: number;
  end: number;
  authenticated: boolean;
}

const authentications = new WeakMap<object, AuthenticationTiming>();

/** `authenticator`, noting per request when it started and answered (read once by the tracing filter). */
export function timedAuthenticator(authenticator: Authenticator): Authenticator {
  return {
    authenticate(req: AuthenticatorRequest) {
      const start = performance.timeOrigin + performance.now();
      const note = (r: AuthenticationResult) => {
        authentications.set(req, { start, end: performance.timeOrigin + performance.now(), authenticated: r.user !== null });
        return r;
      };
      const r = authenticator.authenticate(req);
      return r instanceof Promise ? r.then(note) : note(r);
    },
  };
}

function reportAuthentication(tracer: Tracer, req: Request, parent: ReturnType<typeof context.active>, id: string): void {
  const t = authentications.get(req);
  if (!t) return;
  authentications.delete(req);
  if (!trace.getSpan(parent)?.isRecording()) return;
  tracer.startSpan('Authenticate', { startTime: t.start, attributes: { 'audit-id': id, authenticated: t.authenticated } }, parent).end(t.end);
}

// ---- authorization: an ordinary child span ----

/** `authorizer`, each decision in an `Authorize` span under the request's span. */
export function tracedAuthorizer(authorizer: Authorizer): Authorizer {
  return {
    authorize(a: AuthorizerAttributes) {
      const span = startChildSpan('Authorize', () => ({
        'audit-id': auditID(),
        verb: a.verb,
        ...(a.isResourceRequest ? { 'api-group': a.apiGroup, resource: a.resource, namespace: a.namespace } : { path: a.path }),
      }));
      if (!span) return authorizer.authorize(a);
      const done = (d: AuthorizationResult) => {
        endAuthorization(span, d);
        return d;
      };
      let d: AuthorizationResult | Promise<AuthorizationResult>;
      try {
        d = authorizer.authorize(a);
      } catch (e) {
        endWithError(span, e);
        throw e;
      }
      return d instanceof Promise ? d.then(done, (e: unknown) => (endWithError(span, e), Promise.reject(e))) : done(d);
    },
  };
}

function endAuthorization(span: Span, d: AuthorizationResult): void {
  span.setAttribute('decision', d.decision);
  if (d.reason) span.setAttribute('reason', d.reason);
  if (d.error) span.setStatus({ code: SpanStatusCode.ERROR, message: d.error.message });
  span.end();
}
