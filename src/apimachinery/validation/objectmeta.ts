/**
 * ObjectMeta validation as apimachinery's `pkg/api/validation/objectmeta.go` and the meta/v1 helpers it calls
 * (labels, managedFields, field manager). Error order, paths, values and texts follow upstream, because the 422 message
 * is built from them. Maps are walked in key order of the decoded object (Go walks them in random order).
 */
import type { ManagedFieldsEntry, ObjectMeta, OwnerReference } from '../../apis/meta/v1/types.ts';
import { byteLength, FieldError, forbidden, invalid, notSupported, required, tooLong } from '../field.ts';
import { type NameValidator, isLabelValue, isQualifiedName, nameIsDNSLabel } from './content.ts';

export const FIELD_IMMUTABLE = 'field is immutable';
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
export const FIELD_MANAGER_MAX_LENGTH = 128;
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;
const IS_NEGATIVE = 'must be greater than or equal to 0';
const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** Invalid value when `value` is negative. */
export function validateNonnegativeField(value: number, path: string): FieldError[] {
  return value < 0 ? [invalid(path, value, IS_NEGATIVE)] : [];
}

/** `field is immutable` when the values differ; `equal` decides, the new value is what the error shows. */
export function validateImmutableField<T>(newVal: T, oldVal: T, path: string, equal: (a: T, b: T) => boolean = Object.is): FieldError[] {
  return equal(newVal, oldVal) ? [] : [invalid(path, newVal, FIELD_IMMUTABLE)];
}

export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(path, k, msg));
    for (const msg of isLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

/** Sum of key and value bytes, as upstream's ValidateAnnotationsSize. */
export function annotationsSize(annotations: Record<string, string> | undefined): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) total += byteLength(k) + byteLength(v);
  return total;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // Annotation keys are qualified names except that case does not matter; the error shows the key as sent.
  for (const k of Object.keys(annotations ?? {})) for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** Go's schema.ParseGroupVersion: `''`/`'/'` are empty, `v` is core, `g/v` is grouped, more slashes fail. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | null {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return null;
}

/** An owner reference as Go's JSON encoding of metav1.OwnerReference renders it in error values. */
function ownerRefValue(r: OwnerReference): Record<string, unknown> {
  const v: Record<string, unknown> = { apiVersion: r.apiVersion ?? '', kind: r.kind ?? '', name: r.name ?? '', uid: r.uid ?? '' };
  if (r.controller != null) v['controller'] = r.controller;
  if (r.blockOwnerDeletion != null) v['blockOwnerDeletion'] = r.blockOwnerDeletion;
  return v;
}

function validateOwnerReference(r: OwnerReference, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = r.apiVersion ?? '';
  const gv = parseGroupVersion(apiVersion);
  if (apiVersion.length === 0) errs.push(required(`${path}.apiVersion`, 'must not be empty'));
  else if (gv === null || gv.version.length === 0) errs.push(invalid(`${path}.apiVersion`, apiVersion, 'must be <group>/<version> or <version>'));
  if (!r.kind) errs.push(required(`${path}.kind`, 'must not be empty'));
  if (!r.name) errs.push(required(`${path}.name`, 'must not be empty'));
  if (!r.uid) errs.push(required(`${path}.uid`, 'must not be empty'));
  // Only core v1 Events are banned owners (upstream BannedOwners); the text is Go's GroupVersionKind.String().
  if (gv && gv.group === '' && gv.version === 'v1' && r.kind === 'Event') {
    errs.push(invalid(path, ownerRefValue(r), '/v1, Kind=Event is disallowed from being an owner'));
  }
  return errs;
}

export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  (refs ?? []).forEach((r, i) => {
    errs.push(...validateOwnerReference(r, `${path}[${i}]`));
    if (r.controller === true) {
      const current = `${r.kind ?? ''}/${r.name ?? ''}`;
      if (firstController !== '') {
        errs.push(
          invalid(
            path,
            (refs ?? []).map(ownerRefValue),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  });
  return errs;
}

export function validateFinalizerName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

/** Qualified names (reported on the list path, not the item) and no orphan + foregroundDeletion together. */
export function validateFinalizers(finalizers: string[] | undefined, path: string): FieldError[] {
  const list = finalizers ?? [];
  const errs = list.flatMap((f) => validateFinalizerName(f, path));
  if (list.includes(FINALIZER_ORPHAN) && list.includes(FINALIZER_FOREGROUND)) {
    errs.push(invalid(path, list, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`));
  }
  return errs;
}

/** Forbidden when an object being deleted gains finalizers; the detail is Go's `%#v` of the sorted new names. */
export function validateNoNewFinalizers(newList: string[] | undefined, oldList: string[] | undefined, path: string): FieldError[] {
  const old = new Set(oldList ?? []);
  const extra = [...new Set((newList ?? []).filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  const goSlice = `[]string{${extra.map((f) => JSON.stringify(f)).join(', ')}}`;
  return [forbidden(path, `no new finalizers can be added if the object is being deleted, found new finalizers ${goSlice}`)];
}

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** A field manager: at most 128 bytes, printable characters only. */
export function validateFieldManager(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let pos = 0; // byte offset, as Go's range over a string
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(invalid(path, manager, `invalid character U+${code} (at position ${pos})`));
    }
    pos += byteLength(ch);
  }
  return errs;
}

export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    const p = `${path}[${i}]`;
    const op = (e.operation ?? '') as string;
    if (op === '') errs.push(required(`${p}.operation`, 'must not be empty'));
    else if (op !== 'Apply' && op !== 'Update') errs.push(notSupported(`${p}.operation`, op, ['Apply', 'Update']));
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') errs.push(invalid(`${p}.fieldsType`, e.fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(e.manager ?? '', `${p}.manager`));
    if (byteLength(e.subresource ?? '') > MAX_SUBRESOURCE_NAME_LENGTH) errs.push(tooLong(`${p}.subresource`, MAX_SUBRESOURCE_NAME_LENGTH));
  });
  return errs;
}

/** Namespace, generation, labels, annotations, owners, finalizers, managedFields: the part shared by create paths. */
function validateCommon(meta: ObjectMeta, requiresNamespace: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ns = meta.namespace ?? '';
  if (requiresNamespace) {
    if (ns.length === 0) errs.push(required(`${path}.namespace`));
    else for (const msg of nameIsDNSLabel(ns, false)) errs.push(invalid(`${path}.namespace`, ns, msg));
  } else if (ns.length !== 0) {
    errs.push(forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(meta.generation ?? 0, `${path}.generation`));
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(meta.managedFields, `${path}.managedFields`));
  return errs;
}

/** ObjectMeta on create (upstream ValidateObjectMetaAccessor); name generation has already run. */
export function validateObjectMeta(meta: ObjectMeta, requiresNamespace: boolean, nameFn: NameValidator, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = meta.generateName ?? '';
  if (generateName.length !== 0) for (const msg of nameFn(generateName, true)) errs.push(invalid(`${path}.generateName`, generateName, msg));
  const name = meta.name ?? '';
  if (name.length === 0) errs.push(required(`${path}.name`, 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) errs.push(invalid(`${path}.name`, name, msg));
  errs.push(...validateCommon(meta, requiresNamespace, path));
  return errs;
}

/**
 * ObjectMeta on update (upstream ValidateObjectMetaAccessorUpdate). Upstream also rejects an empty resourceVersion
 * here, but for a strategy that allows unconditional updates (Events) the store copies the stored resourceVersion
 * into the object before validating, so that check can never fire and is left to the store.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, `${path}.finalizers`));
  const gen = newMeta.generation ?? 0;
  errs.push(...validateNonnegativeField(gen, `${path}.generation`));
  if (gen < (oldMeta.generation ?? 0)) errs.push(invalid(`${path}.generation`, gen, 'must not be decremented'));
  // Values are normalized first: a missing string is '', a zero time or absent pointer is null (Go's JSON `null`).
  errs.push(...validateImmutableField(newMeta.name ?? '', oldMeta.name ?? '', `${path}.name`));
  errs.push(...validateImmutableField(newMeta.namespace ?? '', oldMeta.namespace ?? '', `${path}.namespace`));
  errs.push(...validateImmutableField(newMeta.uid ?? '', oldMeta.uid ?? '', `${path}.uid`));
  errs.push(...validateImmutableField(newMeta.creationTimestamp || null, oldMeta.creationTimestamp || null, `${path}.creationTimestamp`));
  errs.push(...validateImmutableField(newMeta.deletionTimestamp || null, oldMeta.deletionTimestamp || null, `${path}.deletionTimestamp`));
  const grace = (m: ObjectMeta) => m.deletionGracePeriodSeconds ?? null;
  errs.push(...validateImmutableField(grace(newMeta), grace(oldMeta), `${path}.deletionGracePeriodSeconds`));
  errs.push(...validateLabels(newMeta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(newMeta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateManagedFields(newMeta.managedFields, `${path}.managedFields`));
  return errs;
}
