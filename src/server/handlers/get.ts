/** GET of one object and LIST (upstream `handlers/get.go`); a LIST with watch=true is a watch (watch.ts). */
import { type ListOptions, parseListOptions } from '../../apimachinery/list-options.ts';
import { toStoredListOptions } from '../../registry/rest/scope.ts';
import { negotiateOutput } from '../negotiation.ts';
import type { RequestContext } from './context.ts';
import { writeList, writeObject } from './response.ts';

export function negotiate(ctx: RequestContext, stream = false) {
  return negotiateOutput(ctx.req.headers.accept, {
    stream,
    userAgent: ctx.req.headers['user-agent'] ?? '',
    prettyParam: ctx.query.get('pretty'),
  });
}

export async function getObject(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const rv = ctx.query.get('resourceVersion') ?? undefined;
  const served = await ctx.scope.store.get(ctx.info.namespace, ctx.info.name, rv || undefined);
  writeObject(ctx, 200, served, n);
}

/** The list options of a LIST or WATCH request, in the stored version's field labels. */
export function listOptionsOf(ctx: RequestContext, watchPath: boolean): ListOptions {
  return toStoredListOptions(ctx.scope, parseListOptions(ctx.query, { watchPath, supportedFieldLabels: ctx.scope.supportedFieldLabels }));
}

export async function listObjects(ctx: RequestContext, opts: ListOptions): Promise<void> {
  const n = negotiate(ctx);
  const list = await ctx.scope.store.list(ctx.info.namespace, opts);
  await writeList(ctx, list, n);
}
