/**
 * The Kubernetes core-API wrappers around ObjectMeta validation (kubernetes `pkg/apis/core/validation`): they add the
 * rule that a finalizer without a `/` must be one of the standard names.
 */
import type { ObjectMeta } from '../../apis/meta/v1/types.ts';
import { type FieldError, invalid } from '../field.ts';
import type { NameValidator } from './content.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.ts';

export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** An unqualified finalizer (no `/`) must be a standard one. */
export function validateKubeFinalizerName(name: string, path: string): FieldError[] {
  if (name.split('/').length === 1 && !STANDARD_FINALIZERS.has(name)) {
    return [invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

function kubeFinalizers(meta: ObjectMeta, path: string): FieldError[] {
  return (meta.finalizers ?? []).flatMap((f, i) => validateKubeFinalizerName(f, `${path}.finalizers[${i}]`));
}

/** Core ValidateObjectMeta: the apimachinery create checks, then the finalizer-name rule per item. */
export function validateCoreObjectMeta(meta: ObjectMeta, requiresNamespace: boolean, nameFn: NameValidator, path = 'metadata'): FieldError[] {
  return [...validateObjectMeta(meta, requiresNamespace, nameFn, path), ...kubeFinalizers(meta, path)];
}

/** Core ValidateObjectMetaUpdate: the apimachinery update checks, then the finalizer-name rule on the new object. */
export function validateCoreObjectMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta, path = 'metadata'): FieldError[] {
  return [...validateObjectMetaUpdate(newMeta, oldMeta, path), ...kubeFinalizers(newMeta, path)];
}
