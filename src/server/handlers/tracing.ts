/**
 * The REST handlers' spans (upstream starts one in each of `handlers/create.go`, `get.go`, `update.go`, `patch.go`,
 * `delete.go`, and `WatchList` for a watch): named after the verb, carrying the request's description
 * (upstream's traceFields), and ended when the handler is done. A watch's span lasts as long as the watch: the
 * handler returns once the stream is set up, so the span ends when the response closes. Used only when tracing
 * is on (api-handler.ts).
 */
import { context, trace } from '@opentelemetry/api';
import { auditID, endWithError, startChildSpan } from '../../tracing/tracing.ts';
import { reportedScope, reportedVerb } from '../request-metrics.ts';
import type { RequestInfo } from '../request-info.ts';
import type { RequestContext } from './context.ts';

/** Upstream truncates the user agent it puts in a span (and in its logs) to this many characters. */
const MAX_USER_AGENT_LENGTH = 256;

const SPAN_NAMES: Record<string, string> = {
  create: 'Create',
  get: 'Get',
  list: 'List',
  watch: 'WatchList',
  update: 'Update',
  patch: 'Patch',
  delete: 'Delete',
  deletecollection: 'Delete',
};

export function handlerSpanName(info: RequestInfo): string {
  return SPAN_NAMES[info.verb] ?? info.verb;
}

function handlerAttributes(ctx: RequestContext) {
  const { req, info } = ctx;
  const scope = reportedScope(info);
  const ua = req.headers['user-agent'] ?? '';
  return {
    accept: req.headers.accept ?? '',
    'audit-id': auditID(),
    client: req.socket?.remoteAddress ?? '',
    'api-group': info.apiGroup,
    'api-version': info.apiVersion,
    name: info.name,
    subresource: info.subresource,
    namespace: info.namespace,
    protocol: `HTTP/${req.httpVersion}`,
    resource: info.resource,
    scope,
    url: info.path,
    'user-agent': ua.length > MAX_USER_AGENT_LENGTH ? ua.slice(0, MAX_USER_AGENT_LENGTH) : ua,
    verb: reportedVerb(req, info, scope),
  };
}

/** Runs `serve` inside the handler's span (when the request is sampled). */
export function serveTraced(ctx: RequestContext, serve: (ctx: RequestContext) => Promise<void>): Promise<void> {
  const span = startChildSpan(handlerSpanName(ctx.info), () => handlerAttributes(ctx));
  if (!span) return serve(ctx);
  const watch = ctx.info.verb === 'watch';
  return context.with(trace.setSpan(context.active(), span), serve, undefined, ctx).then(
    () => {
      if (watch && !ctx.res.closed) {
        span.addEvent('Watch started');
        ctx.res.once('close', () => span.end());
      } else span.end();
    },
    (e: unknown) => {
      endWithError(span, e);
      throw e;
    },
  );
}
