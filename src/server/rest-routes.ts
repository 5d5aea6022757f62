/**
 * Dispatch of resource requests to the verb handlers (upstream `endpoints/installer.go`): which verbs exist on
 * which path shape, and the 404/405 answers for the rest.
 */
import { newMethodNotAllowed, newNotFoundPath } from '../apimachinery/errors.ts';
import type { ResourceScope } from '../registry/rest/scope.ts';
import type { RequestContext } from './handlers/context.ts';
import { createObject } from './handlers/create.ts';
import { deleteCollection, deleteObject } from './handlers/delete.ts';
import { getObject, listObjects, listOptionsOf } from './handlers/get.ts';
import { patchObject } from './handlers/patch.ts';
import { updateObject } from './handlers/update.ts';
import { serveWatch } from './handlers/watch.ts';
import type { RequestInfo } from './request-info.ts';

/** Finds the scope serving a resource request, or undefined when the group/version/resource is not served. */
export function findScope(scopes: ResourceScope[], ri: RequestInfo): ResourceScope | undefined {
  return scopes.find((s) => s.group === ri.apiGroup && s.version === ri.apiVersion && s.resource === ri.resource);
}

export async function serveResource(ctx: RequestContext): Promise<void> {
  const { info } = ctx;
  const connecter = info.subresource ? ctx.scope.connect?.[info.subresource] : undefined;
  if (connecter) {
    // `/<resource>/<name>/<subresource>[/<path>]`: the path after the subresource goes to the object as is.
    const method = (ctx.req.method ?? 'GET').toLowerCase();
    if (!['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].includes(method)) throw newMethodNotAllowed();
    let rest = info.parts.length > 3 ? `/${info.parts.slice(3).join('/')}` : '';
    if (info.path.endsWith('/') && !rest.endsWith('/')) rest += '/';
    const raw = ctx.req.url ?? '';
    const q = raw.indexOf('?');
    return connecter.connect(ctx.req, ctx.res, info.parts[1]!, rest, q < 0 ? '' : raw.slice(q + 1));
  }
  if (info.subresource) {
    // A subresource has routes only on a named object, for the verbs its store serves (status: get, update, patch).
    const sub = ctx.scope.subresources?.[info.subresource];
    if (!sub || info.parts.length !== 3) throw newNotFoundPath();
    // The handlers see the subresource's scope; info keeps the subresource for admission and audit.
    ctx = { ...ctx, scope: sub };
  }
  const { req } = ctx;
  const method = req.method ?? 'GET';
  const namespaced = info.namespace !== '';
  const watchPath = /^\/apis?\/(?:[^/]+\/)?[^/]+\/watch\//.test(info.path);
  if (watchPath && method !== 'GET') throw newMethodNotAllowed();
  // The name from the path; RequestInfo also takes one from a metadata.name field selector (for authorization).
  const pathName = info.parts.length >= 2 ? info.parts[1]! : '';
  // Routes exist only in the resource's scope: a cluster-scoped resource has no namespaced paths, and a namespaced
  // one no objects outside a namespace (its cluster-wide collection is a list/watch path, checked below).
  if (namespaced ? !ctx.scope.namespaced : ctx.scope.namespaced && pathName) throw newNotFoundPath();
  checkVerb(ctx.scope.verbs, method, pathName !== '', watchPath || isWatchQuery(ctx.query));
  if (pathName) {
    switch (method) {
      case 'GET':
        return watchPath ? listOrWatch(ctx, true) : getObject(ctx);
      case 'PUT':
        return updateObject(ctx);
      case 'PATCH':
        return patchObject(ctx);
      case 'DELETE':
        return deleteObject(ctx);
      default:
        throw newMethodNotAllowed();
    }
  }
  // A namespaced resource's cluster-wide collection may only be listed and watched (upstream's installer).
  const wholeCollection = !ctx.scope.namespaced || namespaced;
  switch (method) {
    case 'GET':
      return listOrWatch(ctx, watchPath);
    case 'POST':
      if (!wholeCollection) throw newMethodNotAllowed();
      return createObject(ctx);
    case 'DELETE':
      if (!wholeCollection) throw newMethodNotAllowed();
      return deleteCollection(ctx);
    default:
      throw newMethodNotAllowed();
  }
}

/** Verbs served on a named object's path (upstream registers that path only for a storage that has one). */
const NAMED_VERBS = ['get', 'update', 'patch', 'delete', 'watch'];

/**
 * Routes exist only for the verbs a resource serves (a create-only review has one route, POST on the collection):
 * a named path without any named verb is not found, and a method the path has no route for is 405, as upstream's
 * installer and router answer.
 */
function checkVerb(verbs: readonly string[], method: string, named: boolean, watch: boolean): void {
  if (named && !verbs.some((v) => NAMED_VERBS.includes(v))) throw newNotFoundPath();
  let verb: string;
  switch (method) {
    case 'GET':
      verb = watch ? 'watch' : named ? 'get' : 'list';
      break;
    case 'POST':
      verb = named ? '' : 'create';
      break;
    case 'PUT':
      verb = named ? 'update' : '';
      break;
    case 'PATCH':
      verb = named ? 'patch' : '';
      break;
    case 'DELETE':
      verb = named ? 'delete' : 'deletecollection';
      break;
    default:
      verb = '';
  }
  if (!verbs.includes(verb)) throw newMethodNotAllowed();
}

function isWatchQuery(query: URLSearchParams): boolean {
  const w = query.get('watch');
  return w !== null && w !== 'false' && w !== '0';
}

/** GET on a collection: a list, or a watch when the path or `?watch` asks for one. */
function listOrWatch(ctx: RequestContext, watchPath: boolean): Promise<void> {
  const opts = listOptionsOf(ctx, watchPath);
  return opts.watch ? serveWatch(ctx, opts) : listObjects(ctx, opts);
}
