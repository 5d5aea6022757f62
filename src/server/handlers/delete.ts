/** DELETE of one object and of a collection (upstream `handlers/delete.go`). */
import { parseListOptions } from '../../apimachinery/list-options.ts';
import { writeValue } from '../responsewriters.ts';
import { readBody } from './body.ts';
import { toStoredListOptions, type RequestContext } from './context.ts';
import { negotiate } from './get.ts';
import { parseDeleteOptions } from './options.ts';
import { writeList, writeObject } from './response.ts';

export async function deleteObject(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const body = await readBody(ctx.req);
  const opts = parseDeleteOptions(body, ctx.query);
  const { scope, info } = ctx;
  const { served, deleted } = await scope.store.delete(info.namespace, info.name, opts.preconditions, { dryRun: opts.dryRun });
  if (!deleted) {
    // Finalizers keep the object: upstream answers with the object, 202 only when orphaning was turned off.
    writeObject(ctx, opts.orphanDependents === false ? 202 : 200, served, n);
    return;
  }
  const obj = served.object ?? scope.codec.decode(served.value);
  const details: Record<string, string> = { name: info.name };
  if (scope.group) details.group = scope.group;
  details.kind = scope.resource;
  if (obj.metadata.uid) details.uid = obj.metadata.uid;
  writeValue(ctx.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, n);
}

export async function deleteCollection(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const body = await readBody(ctx.req);
  const listOpts = toStoredListOptions(ctx.scope, parseListOptions(ctx.query, { watchPath: false, supportedFieldLabels: ctx.scope.supportedFieldLabels }));
  const opts = parseDeleteOptions(body, ctx.query);
  const deleted = await ctx.scope.store.deleteCollection(ctx.info.namespace, { ...listOpts, watch: false }, opts.preconditions, { dryRun: opts.dryRun });
  await writeList(ctx, deleted, n);
}
