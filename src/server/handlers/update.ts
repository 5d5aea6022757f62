/** PUT on an object (upstream `handlers/update.go`): replace, or create when missing and the strategy allows it. */
import { type AdmissionRequest, admitUpdateTransform, createValidation, updateValidation } from '../../registry/rest/admission.ts';
import { toStored } from '../../registry/rest/scope.ts';
import { defaultUpdatedObjectInfo } from '../../registry/rest/update.ts';
import { requestBodyType } from '../negotiation.ts';
import { readRequestBody } from './body.ts';
import type { RequestContext } from './context.ts';
import { decodeObject } from './decode.ts';
import { negotiate } from './get.ts';
import { parseWriteOptions, writeManager } from './options.ts';
import { writeObject } from './response.ts';

export async function updateObject(ctx: RequestContext): Promise<void> {
  const n = negotiate(ctx);
  const mediaType = requestBodyType(ctx.req.headers['content-type'], ctx.scope.protobuf !== undefined);
  const body = await readRequestBody(ctx);
  const opts = parseWriteOptions('UpdateOptions', ctx.query);
  const { scope, info, admission } = ctx;
  const obj = toStored(scope, decodeObject(ctx, body, mediaType, opts.fieldValidation));
  const ar: AdmissionRequest = { scope, namespace: info.namespace, name: info.name, user: ctx.user, dryRun: opts.dryRun };
  const { served, created } = await scope.store.update(info.namespace, info.name, defaultUpdatedObjectInfo(obj, ...admitUpdateTransform(admission, ar)), {
    dryRun: opts.dryRun,
    manager: writeManager(opts, ctx.req.headers['user-agent']),
    warnings: ctx.warnings,
    recordManagedFields: true,
    createValidation: createValidation(admission, ar),
    updateValidation: updateValidation(admission, ar),
  });
  writeObject(ctx, created ? 201 : 200, served, n);
}
