/**
 * Authentication and authorization of the corelet's own API, as kubelet's (`pkg/kubelet/server/auth.go` and the
 * auth filter of `server.go`): every request is authenticated (client certificate, bearer token, or anonymous when
 * allowed), then authorized as a request on the `nodes` resource named after this node, with a subresource chosen
 * by the path. Paths with a fine-grained subresource (`/pods`, `/healthz`, `/configz`, `/statusz`, gate
 * KubeletFineGrainedAuthz, GA in 1.36) are tried first with it and then with `proxy`: either grant lets the request
 * in. `/healthz` is not exempt: kubelet authorizes it like every other path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticator } from '../auth/authenticator/interface.ts';
import type { UserInfo } from '../auth/authenticator/user.ts';
import type { Attributes, AuthorizationResult, Authorizer } from '../auth/authorizer/interface.ts';
import { requestPath } from '../util/gourl.ts';

export interface CoreletAuth {
  authenticator: Authenticator;
  authorizer: Authorizer;
}

/** kubelet's verb for the HTTP method; other methods (HEAD, OPTIONS) have none. */
const VERBS: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** kubelet's isSubpath: `path` itself or anything below it (a trailing slash on `path` does not count). */
export function isSubpath(subpath: string, path: string): boolean {
  const p = path.endsWith('/') ? path.slice(0, -1) : path;
  return subpath === p || (subpath.startsWith(p) && subpath[p.length] === '/');
}

/** The subresources a request on `path` is authorized as, in the order they are tried. */
export function subresourcesFor(path: string): string[] {
  const out: string[] = [];
  if (isSubpath(path, '/pods')) out.push('pods');
  else if (isSubpath(path, '/healthz')) out.push('healthz');
  else if (isSubpath(path, '/configz')) out.push('configz');
  else if (isSubpath(path, '/statusz')) out.push('statusz');
  else if (isSubpath(path, '/runningpods/')) out.push('pods');
  if (isSubpath(path, '/stats/')) out.push('stats');
  else if (isSubpath(path, '/metrics')) out.push('metrics');
  // "log", as the other log subresources (pods/log) are named.
  else if (isSubpath(path, '/logs/')) out.push('log');
  else if (isSubpath(path, '/checkpoint/')) out.push('checkpoint');
  else out.push('proxy');
  return out;
}

/** kubelet's GetRequestAttributes: one set of attributes per subresource to try. */
export function requestAttributes(user: UserInfo, method: string, path: string, nodeName: string): Attributes[] {
  const verb = VERBS[method] ?? '';
  return subresourcesFor(path).map((subresource) => ({
    user,
    verb,
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'nodes',
    subresource,
    name: nodeName,
    path,
    isResourceRequest: true,
  }));
}

/** Go's %v of a []string: `[pods proxy]`. */
const goList = (l: readonly string[]) => `[${l.join(' ')}]`;

/**
 * Runs kubelet's auth filter on `req`: true when the request may go on; otherwise the answer is written (text, as
 * go-restful's WriteErrorString sends it): 401 `Unauthorized`, 403 `Forbidden (user=…, verb=…, resource=…,
 * subresource(s)=[…])`, or 500 `Authorization error (…)` when the authorizer could not decide (the API server down).
 */
export async function authorizeRequest(auth: CoreletAuth, nodeName: string, req: IncomingMessage, res: ServerResponse, log: (level: number, msg: string) => void): Promise<boolean> {
  const deny = (code: number, text: string) => {
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end(text);
    return false;
  };
  let user: UserInfo | null;
  try {
    const r = await auth.authenticator.authenticate(req);
    if (r.error) log(0, `Unable to authenticate the request due to an error: ${r.error.message}`);
    user = r.user;
  } catch (e) {
    log(0, `Unable to authenticate the request due to an error: ${(e as Error).message}`);
    user = null;
  }
  if (!user) return deny(401, 'Unauthorized');
  const path = requestPath(req.url ?? '/');
  const attrs = requestAttributes(user, req.method ?? '', path, nodeName);
  for (const a of attrs) {
    let d: AuthorizationResult;
    try {
      d = await auth.authorizer.authorize(a);
    } catch (e) {
      d = { decision: 'NoOpinion', reason: '', error: e as Error };
    }
    if (d.error && d.decision !== 'Allow') {
      log(0, `Authorization error (user=${user.name}, verb=${a.verb}, resource=${a.resource}, subresource=${a.subresource}): ${d.error.message}`);
      return deny(500, `Authorization error (user=${user.name}, verb=${a.verb}, resource=${a.resource}, subresource=${a.subresource})`);
    }
    if (d.decision === 'Allow') return true;
  }
  const subresources = attrs.map((a) => a.subresource);
  log(2, `Forbidden user=${user.name} verb=${attrs[0]!.verb} resource=nodes subresource(s)=${goList(subresources)}`);
  return deny(403, `Forbidden (user=${user.name}, verb=${attrs[0]!.verb}, resource=nodes, subresource(s)=${goList(subresources)})\n`);
}

