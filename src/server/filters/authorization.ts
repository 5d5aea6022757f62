/**
 * Authorization: the `system:masters` group authorizer that upstream always runs first; with no other authorizer
 * configured everyone else is denied. Also the Forbidden error text (responsewriters/errors.go) and the paths
 * upstream grants to everyone (`system:public-info-viewer`).
 */
import { StatusError, ForbiddenError } from '../../apimachinery/errors.ts';
import type { StatusDetails } from '../../apimachinery/errors.ts';
import { goQuote } from '../../apimachinery/field.ts';
import type { RequestInfo } from '../request-info.ts';
import { GROUP_MASTERS, type UserInfo } from './authentication.ts';

export type Decision = { allowed: boolean; reason: string };

/** Allows members of system:masters. A denial carries no reason: no authorizer had an opinion. */
export function authorize(user: UserInfo, _ri: RequestInfo): Decision {
  if (user.groups.includes(GROUP_MASTERS)) return { allowed: true, reason: '' };
  return { allowed: false, reason: '' };
}

/**
 * The 403 for a denied request, e.g. `events.events.cluster.io "n" is forbidden: User "u" cannot get resource
 * "events" in API group "events.cluster.io" in the namespace "ns"`; non-resource requests:
 * `forbidden: User "u" cannot get path "/x"`. A non-empty authorizer reason is appended after `: `.
 */
export function forbiddenError(user: UserInfo, ri: RequestInfo, reason: string): StatusError {
  let msg = escapeHTML(forbiddenMessage(user, ri));
  if (reason) msg += `: ${reason}`;
  const group = ri.isResourceRequest ? ri.apiGroup : '';
  const resource = ri.isResourceRequest ? ri.resource : '';
  const name = ri.isResourceRequest ? ri.name : '';
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

function forbiddenMessage(user: UserInfo, ri: RequestInfo): string {
  const who = goQuote(user.name);
  if (!ri.isResourceRequest) return `User ${who} cannot ${ri.verb} path ${goQuote(ri.path)}`;
  const resource = ri.subresource ? `${ri.resource}/${ri.subresource}` : ri.resource;
  const what = `User ${who} cannot ${ri.verb} resource ${goQuote(resource)} in API group ${goQuote(ri.apiGroup)}`;
  return ri.namespace ? `${what} in the namespace ${goQuote(ri.namespace)}` : `${what} at the cluster scope`;
}

/** Upstream's sanitizer on the user-controlled part of the message. */
function escapeHTML(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

/**
 * Paths every client may GET without credentials, as upstream's system:public-info-viewer role grants them
 * (exact paths: `/readyz/sqlite` and other single checks need credentials, as upstream). Only the `get` verb is
 * granted, so other methods are not public.
 */
export function isPublicPath(pathname: string, method = 'GET'): boolean {
  return (method === 'GET' || method === 'get') && PUBLIC_PATHS.has(pathname);
}
