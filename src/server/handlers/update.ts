/** PUT on an object (upstream `handlers/update.go`): replace, or create when missing. */
import { newBadRequest } from '../../apimachinery/errors.ts';
import { requestBodyType } from '../negotiation.ts';
import { readBody } from './body.ts';
import { toStored, type RequestContext } from './context.ts';
import { decodeObject, ensureNamespace } from './decode.ts';
import { negotiate } from './get.ts';
import { parseWriteOptions, writeManager } from './options.ts';
import { writeObject } from './response.ts';

export async function updateObject(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const mediaType = requestBodyType(ctx.req.headers['content-type']);
  const body = await readBody(ctx.req);
  const opts = parseWriteOptions('UpdateOptions', ctx.query);
  const obj = toStored(ctx.scope, decodeObject(ctx, body, mediaType, opts.fieldValidation));
  const name = ctx.info.name;
  if ((obj.metadata.name ?? '') !== name) {
    throw newBadRequest(`the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  ensureNamespace(ctx, obj);
  const { served, created } = await ctx.scope.store.update(ctx.info.namespace, name, obj, {
    dryRun: opts.dryRun,
    manager: writeManager(opts, ctx.req.headers['user-agent']),
  });
  writeObject(ctx, created ? 201 : 200, served, n);
}
