/** POST on a collection (upstream `handlers/create.go`). */
import { type AdmissionRequest, admitCreate, createValidation } from '../../registry/rest/admission.ts';
import { toStored } from '../../registry/rest/scope.ts';
import { requestBodyType } from '../negotiation.ts';
import { readRequestBody } from './body.ts';
import type { RequestContext } from './context.ts';
import { decodeObject } from './decode.ts';
import { negotiate } from './get.ts';
import { parseWriteOptions, writeManager } from './options.ts';
import { writeObject } from './response.ts';

export async function createObject(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const contentType = ctx.req.headers['content-type'];
  // The common exact header skips media-type parsing (same result: requestBodyType accepts it as it is).
  const mediaType = contentType === 'application/json' ? contentType : requestBodyType(contentType, ctx.scope.protobuf !== undefined);
  const body = await readRequestBody(ctx);
  const opts = parseWriteOptions('CreateOptions', ctx.query);
  const { scope, info, admission } = ctx;
  const obj = toStored(scope, decodeObject(ctx, body, mediaType, opts.fieldValidation));
  const ar: AdmissionRequest = { scope, namespace: info.namespace, name: '', user: ctx.user, dryRun: opts.dryRun };
  await admitCreate(admission, ar, obj);
  const served = await scope.store.create(info.namespace, obj, createValidation(admission, ar), {
    dryRun: opts.dryRun,
    manager: writeManager(opts, ctx.req.headers['user-agent']),
    warnings: ctx.warnings,
    user: ctx.user,
  });
  writeObject(ctx, 201, served, n);
}
