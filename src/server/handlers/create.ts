/** POST on a namespaced collection (upstream `handlers/create.go`). */
import { requestBodyType } from '../negotiation.ts';
import { readBody } from './body.ts';
import { toStored, type RequestContext } from './context.ts';
import { decodeObject, ensureNamespace } from './decode.ts';
import { negotiate } from './get.ts';
import { parseWriteOptions, writeManager } from './options.ts';
import { writeObject } from './response.ts';

export async function createObject(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const contentType = ctx.req.headers['content-type'];
  // The common exact header skips media-type parsing (same result: requestBodyType accepts it as it is).
  const mediaType = contentType === 'application/json' ? contentType : requestBodyType(contentType);
  const body = await readBody(ctx.req);
  const opts = parseWriteOptions('CreateOptions', ctx.query);
  const obj = toStored(ctx.scope, decodeObject(ctx, body, mediaType, opts.fieldValidation));
  ensureNamespace(ctx, obj);
  const served = await ctx.scope.store.create(obj, { dryRun: opts.dryRun, manager: writeManager(opts, ctx.req.headers['user-agent']) });
  writeObject(ctx, 201, served, n);
}
