/** DELETE of one object and of a collection (upstream `handlers/delete.go`). */
import { parseListOptions } from '../../apimachinery/list-options.ts';
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

export async function deleteCollection(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const body = await readRequestBody(ctx);
  const { scope, info, admission } = ctx;
  const listOpts = toStoredListOptions(scope, parseListOptions(ctx.query, { watchPath: false, supportedFieldLabels: scope.supportedFieldLabels }));
  const opts = parseDeleteOptions(body, ctx.query);
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
