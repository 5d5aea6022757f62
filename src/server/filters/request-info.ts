/**
 * The request info filter (upstream `endpoints/filters/requestinfo.go`): parses the URL once, the way every later
 * filter and handler sees it, and derives the request attributes (request-info.ts).
 */
import { newBadRequest, newNotFoundPath } from '../../apimachinery/errors.ts';
import { isPublicPath } from '../../auth/authorizer/public-paths.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import { type RequestInfo, RequestInfoError, parseRequestInfo, plainQueryIndex } from '../request-info.ts';

/** Fills in `ctx`'s URL fields, public-path flag and attributes; throws the 400 a malformed target gets. */
export function withRequestInfo(handler: Handler): Handler {
  return function requestInfo(req, res, ctx) {
    resolveRequestInfo(ctx, req.method ?? 'GET', req.url ?? '/');
    return handler(req, res, ctx);
  };
}

/**
 * The attributes for the filters that need them. A path that looks like a resource request but cannot be parsed
 * (e.g. `/api/v1/watch`) gets its 404 here: upstream's filter answers it at once with a plain-text 500, but nothing a
 * client sends may be a 5xx here, no resource lives at such a path, and answering it only in the first filter
 * that needs the attributes (after authentication) gives an unauthenticated client its 401, as for any path.
 */
export function requestInfoOf(ctx: HandlerContext): RequestInfo {
  if (ctx.requestInfo) return ctx.requestInfo;
  if (ctx.requestInfoError instanceof RequestInfoError) throw newNotFoundPath();
  throw ctx.requestInfoError ?? new Error('no request info: withRequestInfo is not in the handler chain');
}

/** What withRequestInfo does, for the HTTP/2 early refusal too (which has a raw stream's `:method` and `:path`). */
export function resolveRequestInfo(ctx: HandlerContext, method: string, rawUrl: string): void {
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
  ctx.pathname = pathname;
  ctx.query = query;
  ctx.publicPath = isPublicPath(pathname, method);
  try {
    ctx.requestInfo = parseRequestInfo(method, pathname, query);
  } catch (error) {
    ctx.requestInfoError = error;
  }
}
