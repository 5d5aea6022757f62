/**
 * Server-side apply: PATCH with `application/apply-patch+yaml` (upstream `handlers/patch.go` applyPatcher). The
 * body (YAML; JSON is YAML) is applied by the scope's FieldManager to the object as this scope's clients see it,
 * inside the store's retry loop; a missing object is created (201). fieldValidation only looks for repeated keys,
 * after the apply, as upstream does.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { parseYAMLBody, YAMLSyntaxError } from '../../apimachinery/codec/yamlbody.ts';
import { newBadRequest } from '../../apimachinery/errors.ts';
import { FieldManager } from '../../apimachinery/managedfields/index.ts';
import type { Negotiated } from '../negotiation.ts';
import { type AdmissionRequest, admitUpdateTransform, createValidation, updateValidation } from '../../registry/rest/admission.ts';
import { type ResourceScope, toStored, toView } from '../../registry/rest/scope.ts';
import type { RequestContext } from './context.ts';
import type { PatchOptions } from './options.ts';
import { writeObject } from './response.ts';

const managers = new WeakMap<ResourceScope, FieldManager>();

/** The field manager of a scope: entries are recorded in the scope's group/version. */
function scopeFieldManager(scope: ResourceScope): FieldManager {
  let fm = managers.get(scope);
  if (!fm) {
    fm = new FieldManager({ defs: scope.defs, rootDef: scope.definition, apiVersion: scope.groupVersion });
    managers.set(scope, fm);
  }
  return fm;
}

export async function applyObject(ctx: RequestContext, n: Negotiated, body: Buffer, opts: PatchOptions): Promise<void> {
  const { scope, info, admission } = ctx;
  const fm = scopeFieldManager(scope);
  const ar: AdmissionRequest = { scope, namespace: info.namespace, name: info.name, user: ctx.user, dryRun: opts.dryRun };
  const mutate = admitUpdateTransform<KubeObject>(admission, ar);
  let warnings: string[] = [];
  const { served, created } = await scope.store.update(
    info.namespace,
    info.name,
    {
      async updatedObject(live) {
        const { config, duplicates } = decodeApplyBody(body);
        checkApplyType(scope, config);
        const now = new Date();
        const view = live === null ? null : (toView(scope, live) as KubeObject);
        const result = fm.apply(view, config, opts.fieldManager, opts.force, now);
        warnings = [];
        if (duplicates.length && opts.fieldValidation !== 'Ignore') {
          const text = `error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`;
          if (opts.fieldValidation === 'Strict') throw newBadRequest(`error strict decoding YAML: ${text}`);
          warnings.push(text);
        }
        result.kind = scope.kind;
        result.apiVersion = scope.groupVersion;
        let next = toStored(scope, result);
        for (const t of mutate) next = await t(next, live);
        return next;
      },
    },
    {
      dryRun: opts.dryRun,
      // The apply result carries its own managedFields; a missing object is created whatever the strategy says.
      forceAllowCreate: true,
      createValidation: createValidation(admission, ar),
      updateValidation: updateValidation(admission, ar),
    },
  );
  ctx.warnings.push(...warnings);
  writeObject(ctx, created ? 201 : 200, served, n);
}

/** The apply configuration as YAML reads it into a map (400 `error decoding YAML: ...` otherwise). */
function decodeApplyBody(body: Buffer): { config: KubeObject; duplicates: string[] } {
  let parsed;
  try {
    parsed = parseYAMLBody(body.toString('utf8'));
  } catch (e) {
    if (e instanceof YAMLSyntaxError) throw newBadRequest(`error decoding YAML: error converting YAML to JSON: ${e.message}`);
    throw e;
  }
  const v = parsed.value;
  if (v !== null && (typeof v !== 'object' || Array.isArray(v))) {
    const kind = Array.isArray(v) ? 'array' : typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : 'bool';
    throw newBadRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
  }
  return { config: (v ?? {}) as KubeObject, duplicates: parsed.duplicates };
}

/** The configuration must name this endpoint's kind: `invalid object type: <group>/<version>, Kind=<kind>`. */
function checkApplyType(scope: ResourceScope, config: KubeObject): void {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const kind = typeof config.kind === 'string' ? config.kind : '';
  if (apiVersion === scope.groupVersion && kind === scope.kind) return;
  const slash = apiVersion.indexOf('/');
  const gv = slash >= 0 ? apiVersion : `/${apiVersion}`;
  throw newBadRequest(`invalid object type: ${gv}, Kind=${kind}`);
}
