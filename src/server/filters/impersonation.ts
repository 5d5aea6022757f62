/**
 * The impersonation filter (upstream `endpoints/filters/impersonation.go`, WithImpersonation): a request may act as
 * another user with `Impersonate-User`, `Impersonate-Group` (repeatable), `Impersonate-Uid` and
 * `Impersonate-Extra-<key>` headers — what `kubectl --as`, `--as-group` and `--as-uid` send. Each thing asked for
 * is authorized for the real user with the verb `impersonate`:
 *
 *   Impersonate-User: u                        users "u"                  (core group)
 *   Impersonate-User: system:serviceaccount:n:s serviceaccounts "s" in n  (core group)
 *   Impersonate-Group: g                       groups "g"                 (core group)
 *   Impersonate-Uid: x                         uids "x"                   (authentication.k8s.io)
 *   Impersonate-Extra-<key>: v                 userextras/<key> "v"       (authentication.k8s.io)
 *
 * The first refusal answers 403 with upstream's text; groups, extras or a uid without a user are a 400. Allowed,
 * the request continues as the impersonated user (everything after this filter, authorization and the handlers,
 * sees only it), in `system:authenticated` unless it names that group or `system:unauthenticated` itself (the
 * anonymous user gets `system:unauthenticated`), and the headers are removed. The server keeps no audit log, so no
 * audit record of the impersonation is written.
 */
import { newBadRequest } from '../../apimachinery/errors.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../apimachinery/validation/content.ts';
import { pathUnescape } from '../../auth/authenticator/request-header.ts';
import { GROUP_AUTHENTICATED, GROUP_UNAUTHENTICATED, USER_ANONYMOUS, type UserInfo } from '../../auth/authenticator/user.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../../auth/authorizer/interface.ts';
import { log } from '../../util/log.ts';
import type { Handler, HandlerContext } from '../handler.ts';
import type { Request, Response } from '../http-types.ts';
import { forbiddenError } from './authorization.ts';
import type { FilterLatency } from './filter-latency.ts';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

const AUTHENTICATION_GROUP = 'authentication.k8s.io';
const SA_PREFIX = 'system:serviceaccount:';

/** One thing to impersonate: upstream's ObjectReference fields as it fills them. */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  /** The extra key (upstream keeps it in FieldPath). */
  fieldPath: string;
}

/** Go's `%v` of the ObjectReference: its seven fields space-separated, as upstream's 400 prints the list. */
function goRef(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

/** Each header line as `[lower-case name, value]`, repeated headers as separate values (Go's Header holds them so). */
function headerLines(req: Request): [string, string][] {
  const raw = req.rawHeaders as string[] | undefined;
  const out: [string, string][] = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
    return out;
  }
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push([name, v]);
  }
  return out;
}

/** upstream serviceaccount.SplitUsername: `system:serviceaccount:<namespace>:<name>` with valid names, else undefined. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return undefined;
  return { namespace, name };
}

/** What the headers ask to impersonate, in upstream's order: the user, the groups, the extras, the uid. */
export function impersonationRequests(req: Request): ImpersonationRequest[] {
  const lines = headerLines(req);
  const out: ImpersonationRequest[] = [];
  const ref = (kind: ImpersonationRequest['kind'], name: string, extra: Partial<ImpersonationRequest> = {}): ImpersonationRequest => ({ kind, namespace: '', name, apiVersion: '', fieldPath: '', ...extra });
  // Header.Get: the first value only.
  const user = lines.find(([n]) => n === USER_HEADER)?.[1] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? ref('ServiceAccount', sa.name, { namespace: sa.namespace }) : ref('User', user));
  }
  let hasGroups = false;
  for (const [n, v] of lines) {
    if (n !== GROUP_HEADER) continue;
    hasGroups = true;
    out.push(ref('Group', v));
  }
  let hasExtra = false;
  for (const [n, v] of lines) {
    if (!n.startsWith(EXTRA_PREFIX)) continue;
    hasExtra = true;
    out.push(ref('UserExtra', v, { apiVersion: `${AUTHENTICATION_GROUP}/v1`, fieldPath: pathUnescape(n.slice(EXTRA_PREFIX.length)) }));
  }
  const uid = lines.find(([n]) => n === UID_HEADER)?.[1] ?? '';
  if (uid) out.push(ref('UID', uid, { apiVersion: `${AUTHENTICATION_GROUP}/v1` }));
  if ((hasGroups || hasExtra || uid) && !user) throw newBadRequest(`requested [${out.map(goRef).join(' ')}] without impersonating a user`);
  return out;
}

/** The `impersonate` check of one request, upstream's attributes. */
function attributesFor(requestor: UserInfo, r: ImpersonationRequest): Attributes {
  const base = { user: requestor, verb: 'impersonate', namespace: r.namespace, name: r.name, path: '', isResourceRequest: true, subresource: '' };
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'serviceaccounts' };
    case 'User':
      return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'users' };
    case 'Group':
      return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'groups' };
    case 'UserExtra':
      return { ...base, apiGroup: AUTHENTICATION_GROUP, apiVersion: 'v1', resource: 'userextras', subresource: r.fieldPath };
    case 'UID':
      return { ...base, apiGroup: AUTHENTICATION_GROUP, apiVersion: 'v1', resource: 'uids' };
  }
}

/** The user the allowed requests make up. */
function impersonatedUser(requests: ImpersonationRequest[], groupsSpecified: boolean): UserInfo {
  let name = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  let uid = '';
  for (const r of requests) {
    switch (r.kind) {
      case 'ServiceAccount':
        name = `${SA_PREFIX}${r.namespace}:${r.name}`;
        // A service account's groups are known; named groups, when given, are the whole answer.
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'User':
        name = r.name;
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        uid = r.name;
        break;
    }
  }
  if (name !== USER_ANONYMOUS) {
    if (!groups.includes(GROUP_AUTHENTICATED) && !groups.includes(GROUP_UNAUTHENTICATED)) groups.push(GROUP_AUTHENTICATED);
  } else if (!groups.includes(GROUP_UNAUTHENTICATED)) {
    groups.push(GROUP_UNAUTHENTICATED);
  }
  const user: UserInfo = { name, groups, extra };
  if (uid) user.uid = uid;
  return user;
}

function removeImpersonationHeaders(req: Request): void {
  const headers = req.headers as Record<string, unknown>;
  for (const name of Object.keys(headers)) if (name === USER_HEADER || name === GROUP_HEADER || name === UID_HEADER || name.startsWith(EXTRA_PREFIX)) delete headers[name];
  const raw = req.rawHeaders as string[] | undefined;
  if (!Array.isArray(raw)) return;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    const n = raw[i]!.toLowerCase();
    if (n === USER_HEADER || n === GROUP_HEADER || n === UID_HEADER || n.startsWith(EXTRA_PREFIX)) raw.splice(i, 2);
  }
}

/** Whether any header might ask for impersonation: the common request pays one scan of its header names. */
function mayImpersonate(req: Request): boolean {
  for (const name in req.headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

export function withImpersonation(handler: Handler, authorizer: Authorizer, latency?: FilterLatency): Handler {
  async function impersonate(req: Request, res: Response, ctx: HandlerContext, started: number): Promise<void> {
    const requests = impersonationRequests(req);
    if (requests.length === 0) return next(req, res, ctx, started);
    const requestor = ctx.user;
    if (!requestor) throw new Error('no user to impersonate for: withAuthentication is not in the handler chain before withImpersonation');
    for (const r of requests) {
      const a = attributesFor(requestor, r);
      let d: AuthorizationResult;
      try {
        d = await authorizer.authorize(a);
      } catch (e) {
        d = { decision: 'NoOpinion', reason: '', error: e instanceof Error ? e : new Error(String(e)) };
      }
      // Upstream refuses on an error as on a denial: 403, never 500 (the impersonation was not proven allowed).
      if (d.decision !== 'Allow' || d.error) {
        log.V(4).info('Forbidden', { URI: req.url ?? '', reason: d.reason, err: d.error?.message ?? '' });
        throw forbiddenError(a, d.reason);
      }
    }
    const groupsSpecified = requests.some((r) => r.kind === 'Group');
    const user = impersonatedUser(requests, groupsSpecified);
    log.V(3).info('Impersonating', { user: userString(requestor), as: userString(user) });
    removeImpersonationHeaders(req);
    ctx.user = user;
    return next(req, res, ctx, started);
  }
  /** Upstream tracks this filter for every request, up to the next handler (a refusal is not observed). */
  function next(req: Request, res: Response, ctx: HandlerContext, started: number): Promise<void> {
    if (latency) latency.filterLatency('impersonation', (performance.now() - started) / 1000);
    return handler(req, res, ctx);
  }
  return function impersonation(req, res, ctx) {
    const started = latency ? performance.now() : 0;
    return mayImpersonate(req) ? impersonate(req, res, ctx, started) : next(req, res, ctx, started);
  };
}

/** upstream's userString: `name[group1,group2]`, `<empty>` for no name. */
function userString(u: UserInfo): string {
  return `${u.name || '<empty>'}${u.groups.length ? `[${u.groups.join(',')}]` : ''}`;
}
