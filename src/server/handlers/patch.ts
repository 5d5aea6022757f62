/**
 * PATCH on an object (upstream `handlers/patch.go`): JSON patch, merge patch and strategic merge patch; server-side
 * apply is in apply.ts. Checks in upstream's order: Content-Type (415), Accept (406), body size (413), options
 * (422); then, inside the store's optimistic retry loop, the patch is applied to the object as this scope's clients
 * see it and the result decoded with fieldValidation (a result that does not decode is a 422 naming `patch`).
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { convertValue } from '../../apimachinery/codec/decode.ts';
import type { FieldValidation } from '../../apimachinery/codec/types.ts';
import { StatusError, newNotFound, InvalidError } from '../../apimachinery/errors.ts';
import { invalid } from '../../apimachinery/field.ts';
import { applyPatchBody, type NonApplyPatchType } from '../../apimachinery/patch/patch.ts';
import { PatchSchema } from '../../apimachinery/patch/strategic-merge.ts';
import { patchType } from '../negotiation.ts';
import { applyObject } from './apply.ts';
import { readRequestBody } from './body.ts';
import { type AdmissionRequest, admitUpdateTransform, updateValidation } from '../../registry/rest/admission.ts';
import { type ResourceScope, toStored, toView } from '../../registry/rest/scope.ts';
import type { RequestContext } from './context.ts';
import { negotiate } from './get.ts';
import { parsePatchOptions, writeManager } from './options.ts';
import { writeObject } from './response.ts';

export async function patchObject(ctx: RequestContext): Promise<void> {
  const type = patchType(ctx.req.headers['content-type']);
  const n = negotiate(ctx);
  const body = await readRequestBody(ctx);
  const opts = parsePatchOptions(ctx.query, type === 'apply');
  if (type === 'apply') return applyObject(ctx, n, body, opts);
  const { scope, info, admission } = ctx;
  const ar: AdmissionRequest = { scope, namespace: info.namespace, name: info.name, user: ctx.user, dryRun: opts.dryRun };
  const mutate = admitUpdateTransform<KubeObject>(admission, ar);
  let warnings: string[] = [];
  const { served } = await scope.store.update(
    info.namespace,
    info.name,
    {
      // A patch needs something to patch: a missing object is 404 even where PUT would create it (upstream's
      // jsonPatcher and smpPatcher createNewObject).
      async updatedObject(current) {
        if (current === null) throw newNotFound({ group: scope.group, resource: scope.resource }, info.name);
        const r = patchStoredObject(scope, type, current, body, opts.fieldValidation);
        warnings = r.warnings;
        let next = r.object;
        for (const t of mutate) next = await t(next, current);
        return next;
      },
    },
    {
      dryRun: opts.dryRun,
      manager: writeManager(opts, ctx.req.headers['user-agent']),
      warnings: ctx.warnings,
      recordManagedFields: true,
      updateValidation: updateValidation(admission, ar),
    },
  );
  ctx.warnings.push(...warnings);
  writeObject(ctx, 200, served, n);
}

const schemas = new WeakMap<ResourceScope, PatchSchema>();

function patchSchema(scope: ResourceScope): PatchSchema {
  let s = schemas.get(scope);
  if (!s) {
    s = new PatchSchema(scope.defs, scope.definition);
    schemas.set(scope, s);
  }
  return s;
}

/**
 * Patches a stored object: converted to the scope's version, patched, decoded with fieldValidation, converted
 * back. Returns the new stored object and the warnings to send (fieldValidation=Warn).
 */
function patchStoredObject(
  scope: ResourceScope,
  type: NonApplyPatchType,
  stored: KubeObject,
  body: Buffer,
  fv: FieldValidation,
): { object: KubeObject; warnings: string[] } {
  const patched = applyPatchBody(type, toView(scope, stored), body, fv, patchSchema(scope));
  const invalidPatch = (detail: string) => {
    const err = invalid('patch', patched.shown(), detail);
    // Upstream's NewInvalid with an empty GroupKind: no kind, no name, so the message starts with a space.
    return new InvalidError(` "" is invalid: ${err.text()}`, { causes: [{ reason: err.type, message: err.body(), field: err.field }] });
  };
  let decoded;
  try {
    decoded = convertValue(patched.value, scope.defs, scope.definition);
  } catch (e) {
    if (e instanceof StatusError && e.code === 400) throw invalidPatch(stripCannotHandle(scope, e.message));
    throw e;
  }
  const obj = decoded.object as KubeObject;
  const kindError = checkPatchedKind(scope, obj);
  if (kindError) throw invalidPatch(kindError);
  const problems = fv === 'Ignore' ? [] : [...patched.strictProblems, ...decoded.strictProblems];
  if (problems.length && fv === 'Strict') throw invalidPatch(`strict decoding error: ${problems.join(', ')}`);
  obj.kind = scope.kind;
  obj.apiVersion = scope.groupVersion;
  obj.metadata ??= {};
  return { object: toStored(scope, obj), warnings: fv === 'Warn' ? problems : [] };
}

// The codec words decode failures for request bodies; upstream's patch path shows the bare decoder error.
function stripCannotHandle(scope: ResourceScope, message: string): string {
  const prefix = `${scope.kind} in version ${JSON.stringify(scope.version)} cannot be handled as a ${scope.kind}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** A patch may leave out kind and apiVersion (defaulted) but not name another kind or version. */
function checkPatchedKind(scope: ResourceScope, obj: KubeObject): string | null {
  const kind = obj.kind || scope.kind;
  const gv = obj.apiVersion || scope.groupVersion;
  if (kind === scope.kind && gv === scope.groupVersion) return null;
  return `no kind "${kind}" is registered for version "${gv}" in scheme "pkg/api/legacyscheme/scheme.go:30"`;
}
