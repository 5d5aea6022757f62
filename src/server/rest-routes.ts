/**
 * Dispatch of resource requests to the verb handlers (upstream `endpoints/installer.go`): which verbs exist on
 * which path shape, and the 404/405 answers for the rest.
 */
import { newMethodNotAllowed, newNotFoundPath } from '../apimachinery/errors.ts';
import type { RequestContext, ResourceScope } from './handlers/context.ts';
import { createObject } from './handlers/create.ts';
import { deleteCollection, deleteObject } from './handlers/delete.ts';
import { getObject, listObjects } from './handlers/get.ts';
import { patchObject } from './handlers/patch.ts';
import { updateObject } from './handlers/update.ts';
import type { RequestInfo } from './request-info.ts';

/** Finds the scope serving a resource request, or undefined when the group/version/resource is not served. */
export function findScope(scopes: ResourceScope[], ri: RequestInfo): ResourceScope | undefined {
  return scopes.find((s) => s.group === ri.apiGroup && s.version === ri.apiVersion && s.resource === ri.resource);
}

export async function serveResource(ctx: RequestContext): Promise<void> {
  const { info, req } = ctx;
  if (info.subresource) throw newNotFoundPath();
  const method = req.method ?? 'GET';
  const namespaced = info.namespace !== '';
  const watchPath = /^\/apis?\/(?:[^/]+\/)?[^/]+\/watch\//.test(info.path);
  if (watchPath && method !== 'GET') throw newMethodNotAllowed();
  // The name from the path; RequestInfo also takes one from a metadata.name field selector (for authorization).
  const pathName = info.parts.length >= 2 ? info.parts[1]! : '';
  if (pathName) {
    switch (method) {
      case 'GET':
        return watchPath ? listObjects(ctx, true) : getObject(ctx);
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
  switch (method) {
    case 'GET':
      return listObjects(ctx, watchPath);
    case 'POST':
      if (!namespaced) throw newMethodNotAllowed();
      return createObject(ctx);
    case 'DELETE':
      if (!namespaced) throw newMethodNotAllowed();
      return deleteCollection(ctx);
    default:
      throw newMethodNotAllowed();
  }
}
