/** GET of one object and LIST (upstream `handlers/get.go`). */
import { parseListOptions } from '../../apimachinery/list-options.ts';
import { negotiateOutput } from '../negotiation.ts';
import { toStoredListOptions, type RequestContext } from './context.ts';
import { writeList, writeObject } from './response.ts';
import { serveWatch } from './watch.ts';

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

export async function listObjects(ctx: RequestContext, watchPath: boolean): Promise<void> {
  const n = negotiate(ctx);
  const opts = toStoredListOptions(ctx.scope, parseListOptions(ctx.query, { watchPath, supportedFieldLabels: ctx.scope.supportedFieldLabels }));
  if (opts.watch) return serveWatch(ctx, opts);
  const list = await ctx.scope.store.list(ctx.info.namespace, opts);
  await writeList(ctx, list, n);
}
