/**
 * What the filter chain is made of (upstream: `http.Handler` and what the filters store in the request's
 * `context.Context`). A handler answers a request, or throws (or rejects with) an error: a StatusError becomes its
 * Status, anything else a logged 500 (withPanicRecovery). A filter is a handler built around the next one.
 */
import type { UserInfo } from '../auth/authenticator/user.ts';
import type { Request, Response } from './http-types.ts';
import type { RequestInfo } from './request-info.ts';

export type Handler = (req: Request, res: Response, ctx: HandlerContext) => Promise<void>;

/** What the filters learned about a request, for the filters and handlers after them. One object per request. */
export interface HandlerContext {
  /** The percent-decoded URL path (Go's `URL.Path`); withRequestInfo. */
  pathname: string;
  /** The parsed query string; withRequestInfo. */
  query: URLSearchParams;
  /** A path everyone may GET without credentials (`isPublicPath`); withRequestInfo. */
  publicPath: boolean;
  /** The request attributes (read them with `requestInfoOf`); withRequestInfo. */
  requestInfo: RequestInfo | undefined;
  /** Why the attributes could not be derived (then `requestInfo` is undefined). */
  requestInfoError: unknown;
  /** The authenticated user (`system:anonymous` without credentials); null only before withAuthentication. */
  user: UserInfo | null;
  /** performance.now() when the request arrived (upstream's ReceivedTimestamp): request durations count from here. */
  receivedAt: number;
}

const NO_QUERY = new URLSearchParams();

/** A context with nothing learned yet; every field present, so that all of them share one shape. */
export function newHandlerContext(): HandlerContext {
  return { pathname: '', query: NO_QUERY, publicPath: false, requestInfo: undefined, requestInfoError: undefined, user: null, receivedAt: performance.now() };
}
