/**
 * The authorization filter (upstream `endpoints/filters/authorization.go`): asks the authorizer whether the user may
 * do what the request attributes say; anything but Allow is refused with upstream's 403 Forbidden text (a decision
 * carrying an error with a 500, as upstream). The public paths are not asked about: everyone may read them.
 */
import { StatusError, ForbiddenError } from '../../apimachinery/errors.ts';
import type { StatusDetails } from '../../apimachinery/errors.ts';
import { goQuote } from '../../apimachinery/field.ts';
import type { UserInfo } from '../../auth/authenticator/user.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../../auth/authorizer/interface.ts';
import { log } from '../../util/log.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import type { Request, Response } from '../http-types.ts';
import type { RequestInfo } from '../request-info.ts';
import { writeText } from '../responsewriters.ts';
import type { FilterLatency } from './filter-latency.ts';
import { requestInfoOf } from './request-info.ts';

export function withAuthorization(handler: Handler, authorizer: Authorizer, latency?: FilterLatency): Handler {
  function decided(d: AuthorizationResult, a: Attributes, req: Request, res: Response, ctx: HandlerContext, started: number): Promise<void> {
    if (d.decision === 'Allow') {
      // Upstream tracks this filter only up to the next handler: a refusal is not observed.
      if (latency) latency.filterLatency('authorization', (performance.now() - started) / 1000);
      return handler(req, res, ctx);
    }
    if (d.error) {
      // Upstream's responsewriters.InternalError: the authorizer failed, the request was not judged.
      log.error('Authorization failed', { URI: req.url ?? '', err: d.error.message });
      writeText(res, 500, `Internal Server Error: ${goQuote(req.url ?? '')}: ${d.error.message}\n`);
      return DONE;
    }
    throw forbiddenError(a, d.reason);
  }
  return function authorization(req, res, ctx) {
    if (ctx.publicPath) return handler(req, res, ctx);
    const user = ctx.user;
    if (!user) throw new Error('no user to authorize: withAuthentication is not in the handler chain before withAuthorization');
    const started = latency ? performance.now() : 0;
    const a = attributesOf(user, requestInfoOf(ctx));
    const d = authorizer.authorize(a);
    return d instanceof Promise ? d.then((answer) => decided(answer, a, req, res, ctx, started)) : decided(d, a, req, res, ctx, started);
  };
}

const DONE = Promise.resolve();

/** Upstream's GetAuthorizerAttributes: the user and the request attributes. */
export function attributesOf(user: UserInfo, ri: RequestInfo): Attributes {
  return {
    user,
    verb: ri.verb,
    namespace: ri.namespace,
    apiGroup: ri.apiGroup,
    apiVersion: ri.apiVersion,
    resource: ri.resource,
    subresource: ri.subresource,
    name: ri.name,
    path: ri.path,
    isResourceRequest: ri.isResourceRequest,
  };
}

/**
 * The 403 for a denied request, e.g. `events.events.cluster.io "n" is forbidden: User "u" cannot get resource
 * "events" in API group "events.cluster.io" in the namespace "ns"`; non-resource requests:
 * `forbidden: User "u" cannot get path "/x"`. A non-empty authorizer reason is appended after `: `.
 */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  let msg = escapeHTML(forbiddenMessage(a));
  if (reason) msg += `: ${reason}`;
  const group = a.isResourceRequest ? a.apiGroup : '';
  const resource = a.isResourceRequest ? a.resource : '';
  const name = a.isResourceRequest ? a.name : '';
  let message: string;
  if (!group && !resource) message = `forbidden: ${msg}`;
  else {
    const qualified = group ? `${resource}.${group}` : resource;
    message = name ? `${qualified} ${goQuote(name)} is forbidden: ${msg}` : `${qualified} is forbidden: ${msg}`;
  }
  // Go's StatusDetails omits empty fields; a non-resource 403 has `details: {}`.
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return new ForbiddenError(message, details);
}

function forbiddenMessage(a: Attributes): string {
  const who = goQuote(a.user.name);
  if (!a.isResourceRequest) return `User ${who} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = `User ${who} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)}`;
  return a.namespace ? `${what} in the namespace ${goQuote(a.namespace)}` : `${what} at the cluster scope`;
}

/** Upstream's sanitizer on the user-controlled part of the message. */
function escapeHTML(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
