/**
 * The innermost handler, after every filter (upstream `server/handler.go` APIServerHandler's director): served
 * resources go to the REST handlers, then health, then the other paths (discovery, OpenAPI, /version); unknown
 * paths below a served group version get a Status 404, others upstream's plain-text one.
 */
import { newNotFoundPath } from '../apimachinery/errors.ts';
import type { Tracer } from '@opentelemetry/api';
import type { UserInfo } from '../auth/authenticator/user.ts';
import type { Authorizer } from '../auth/authorizer/interface.ts';
import { type AdmissionChain, NO_ADMISSION } from '../admission/chain.ts';
import type { ResourceScope } from '../registry/rest/scope.ts';
import type { RequestContext } from './handlers/context.ts';
import { requestInfoOf } from './filters/request-info.ts';
import type { Handler, HandlerContext } from './handler.ts';
import type { HealthChecks } from './healthz.ts';
import type { Request, Response } from './http-types.ts';
import { writeText } from './responsewriters.ts';
import type { RequestMetrics } from './request-metrics.ts';
import { findScope, serveResource } from './rest-routes.ts';
import { serveTraced } from './handlers/tracing.ts';

/** A non-resource handler: returns true when it answered. */
export type PathHandler = (req: Request, res: Response, pathname: string, query: URLSearchParams, user: UserInfo | null) => boolean | Promise<boolean>;

export interface APIHandlerConfig {
  scopes: ResourceScope[];
  /** Handlers that authorize a second verb (the unsafe delete) ask it; the filter chain judges the request itself. */
  authorizer?: Authorizer;
  /** Admission plugins every write passes (default: none). */
  admission?: AdmissionChain;
  health: HealthChecks;
  /** Discovery, OpenAPI, /version and friends, tried in order before resource routing. */
  pathHandlers: PathHandler[];
  /** Path prefixes of served API group versions: unknown paths below them get a Status 404, others plain text. */
  servedPrefixes: string[];
  /** Records apiserver_request_total and friends for the REST requests (absent: none recorded). */
  requestMetrics?: RequestMetrics;
  /** Set when tracing is on (`--tracing-config-file`): requests get spans. Absent: no tracing code runs. */
  tracer?: Tracer;
}

/** The health endpoints upstream instruments (their per-check paths are not). */
const HEALTH_ROOTS = new Set(['/healthz', '/livez', '/readyz']);

export function newAPIHandler(cfg: APIHandlerConfig): Handler {
  const metrics = cfg.requestMetrics;
  async function nonResource(req: Request, res: Response, ctx: HandlerContext): Promise<void> {
    const { pathname, query } = ctx;
    if (cfg.health.handle(req, res, pathname, query)) {
      if (metrics && HEALTH_ROOTS.has(pathname)) metrics.health(res, pathname, ctx.receivedAt);
      return;
    }
    for (const h of cfg.pathHandlers) if (await h(req, res, pathname, query, ctx.user)) return;
    if (cfg.servedPrefixes.some((p) => pathname === p || pathname.startsWith(p + '/'))) throw newNotFoundPath();
    writeText(res, 404, '404 page not found\n');
  }
  const admission = cfg.admission ?? NO_ADMISSION;
  const authorizer = cfg.authorizer;
  // Decided once: without tracing the route is served directly, with no per-request check.
  const serve = cfg.tracer ? (rctx: RequestContext) => serveTraced(rctx, serveResource) : serveResource;
  return function apiHandler(req, res, ctx) {
    const info = requestInfoOf(ctx);
    if (info.isResourceRequest) {
      const scope = findScope(cfg.scopes, info);
      if (scope) {
        // Every request past authentication has a user (system:anonymous at least).
        const rctx: RequestContext = { req, res, query: ctx.query, info, user: ctx.user!, scope, admission, authorizer, warnings: [], receivedAt: ctx.receivedAt };
        return metrics ? metrics.around(rctx, serve) : serve(rctx);
      }
    }
    return nonResource(req, res, ctx);
  };
}
