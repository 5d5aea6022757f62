/** DELETE of one object and of a collection (upstream `handlers/delete.go`). */
import { newForbidden, newInternalError, newInvalidOptions } from '../../apimachinery/errors.ts';
import { invalid } from '../../apimachinery/field.ts';
import { parseListOptions } from '../../apimachinery/list-options.ts';
import { log } from '../../util/log.ts';
import { type AdmissionRequest, admitDelete, deleteValidation } from '../../registry/rest/admission.ts';
import { toStoredListOptions } from '../../registry/rest/scope.ts';
import { writeValue } from '../responsewriters.ts';
import { readRequestBody } from './body.ts';
import type { RequestContext } from './context.ts';
import { negotiate } from './get.ts';
import { parseDeleteOptions } from './options.ts';
import { writeList, writeObject } from './response.ts';

export async function deleteObject(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const body = await readRequestBody(ctx);
  const opts = parseDeleteOptions(body, ctx.query);
  const { scope, info, admission } = ctx;
  const ar: AdmissionRequest = { scope, namespace: info.namespace, name: info.name, user: ctx.user, dryRun: opts.dryRun };
  await admitDelete(admission, ar, false);
  if (opts.ignoreStoreReadError) return unsafeDelete(ctx, n);
  const { served, deleted } = await scope.store.delete(info.namespace, info.name, deleteValidation(admission, ar), {
    dryRun: opts.dryRun,
    ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
  });
  if (!deleted) {
    // Finalizers keep the object: upstream answers with the object, 202 only when orphaning was turned off.
    writeObject(ctx, opts.orphanDependents === false ? 202 : 200, served, n);
    return;
  }
  const obj = scope.store.decode(served);
  const details: Record<string, string> = { name: info.name };
  if (scope.group) details.group = scope.group;
  details.kind = scope.resource;
  if (obj.metadata.uid) details.uid = obj.metadata.uid;
  writeValue(ctx.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, n);
}

const UNSAFE_VERB = 'unsafe-delete-ignore-read-errors';

/**
 * DELETE with ignoreStoreReadErrorWithClusterBreakingPotential (gate AllowUnsafeMalformedObjectDeletion): only for
 * a user who may also do `unsafe-delete-ignore-read-errors` on the object (upstream's authorizeUnsafeDelete), and
 * only for an object that cannot be read (the store refuses a healthy one). There is no object to answer with:
 * upstream's Status Success naming it.
 */
async function unsafeDelete(ctx: RequestContext, n: ReturnType<typeof negotiate>): Promise<void> {
  const { scope, info, user } = ctx;
  const gr = { group: scope.group, resource: scope.resource };
  if (!ctx.authorizer) throw newInternalError(new Error('no authorizer provided, unable to authorize unsafe delete'));
  if (info.subresource) throw newForbidden(gr, info.name, 'ignoreStoreReadErrorWithClusterBreakingPotential delete option is not allowed on a subresource or non-resource request');
  let r;
  try {
    r = await ctx.authorizer.authorize({
      user,
      verb: UNSAFE_VERB,
      namespace: info.namespace,
      apiGroup: scope.group,
      apiVersion: scope.version,
      resource: scope.resource,
      subresource: '',
      name: info.name,
      path: info.path,
      isResourceRequest: true,
    });
  } catch (e) {
    throw newForbidden(gr, info.name, `error while checking permission for "${UNSAFE_VERB}", ${(e as Error).message}`);
  }
  if (r.decision !== 'Allow') {
    if (r.error) throw newForbidden(gr, info.name, `error while checking permission for "${UNSAFE_VERB}", ${r.error.message}`);
    throw newForbidden(gr, info.name, `not permitted to do "${UNSAFE_VERB}", reason: ${r.reason}`);
  }
  log.warning('Performing unsafe deletion of an object that cannot be read', { resource: `${scope.resource}${scope.group ? `.${scope.group}` : ''}`, namespace: info.namespace, name: info.name, user: user.name });
  await scope.store.deleteCorrupt(info.namespace, info.name);
  writeValue(ctx.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: info.name, kind: scope.kind } }, n);
}

export async function deleteCollection(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const body = await readRequestBody(ctx);
  const { scope, info, admission } = ctx;
  const listOpts = toStoredListOptions(scope, parseListOptions(ctx.query, { watchPath: false, supportedFieldLabels: scope.supportedFieldLabels }));
  const opts = parseDeleteOptions(body, ctx.query);
  if (opts.ignoreStoreReadError) {
    throw newInvalidOptions('DeleteOptions', [invalid('ignoreStoreReadErrorWithClusterBreakingPotential', true, 'is not allowed with DELETECOLLECTION, try again after removing the option')]);
  }
  const ar: AdmissionRequest = { scope, namespace: info.namespace, name: '', user: ctx.user, dryRun: opts.dryRun };
  await admitDelete(admission, ar, true);
  const deleted = await scope.store.deleteCollection(
    info.namespace,
    deleteValidation(admission, ar),
    { dryRun: opts.dryRun, ...(opts.preconditions ? { preconditions: opts.preconditions } : {}) },
    { ...listOpts, watch: false },
  );
  await writeList(ctx, deleted, n);
}
