/**
 * Validation of the access reviews (upstream `pkg/apis/authorization/validation`): exactly one of resource and
 * non-resource attributes, a user or a group for reviews about someone else, selectors well formed, and metadata
 * empty (a review is a question, not an object). Texts, paths and values as upstream prints them.
 */
import type { ObjectMeta } from '../../apis/meta/v1/types.ts';
import type { FieldSelectorAttributes, LabelSelectorAttributes, ResourceAttributes, SubjectAccessReviewSpec } from '../../apis/authorization/v1/types.ts';
import { FieldError, forbidden, invalid, required } from '../../apimachinery/field.ts';
import { isLabelValue, isQualifiedName } from '../../apimachinery/validation/content.ts';
import { goNonResourceAttributes, goObjectMeta, type GoValue } from './gostring.ts';

/** field.Invalid of a struct: the value as Go's `%#v` has it, not quoted as a string would be. */
class InvalidStruct extends FieldError {
  constructor(field: string, value: GoValue, detail: string) {
    super('FieldValueInvalid', field, value, detail);
  }

  override body(): string {
    return `Invalid value: ${(this.value as GoValue).text}: ${this.detail}`;
  }
}

function validateAttributesChoice(spec: SubjectAccessReviewSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errs.push(new InvalidStruct(`${path}.nonResourceAttributes`, goNonResourceAttributes(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    // Upstream passes the (nil) non-resource attributes as the value here, printed "null".
    errs.push(new InvalidStruct(`${path}.resourceAttributes`, goNonResourceAttributes(undefined), 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  return errs;
}

/** SubjectAccessReview and LocalSubjectAccessReview: someone to ask about. */
export function validateSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec, path = 'spec'): FieldError[] {
  const errs = validateAttributesChoice(spec, path);
  if (!spec.user && !spec.groups?.length) errs.push(invalid(`${path}.user`, spec.user ?? '', 'at least one of user or group must be specified'));
  errs.push(...validateResourceAttributes(spec.resourceAttributes, 'spec.resourceAttributes'));
  return errs;
}

/** SelfSubjectAccessReview: the asker is the subject. */
export function validateSelfSubjectAccessReviewSpec(spec: SubjectAccessReviewSpec, path = 'spec'): FieldError[] {
  return [...validateAttributesChoice(spec, path), ...validateResourceAttributes(spec.resourceAttributes, 'spec.resourceAttributes')];
}

/** Go's apiequality.Semantic.DeepEqual(ObjectMeta{}, m) with managedFields (and `skip`) cleared: empty maps and lists count as unset. */
function metaIsEmpty(m: ObjectMeta, skip: keyof ObjectMeta | undefined): boolean {
  for (const [k, v] of Object.entries(m)) {
    if (k === 'managedFields' || k === skip || v === undefined || v === null || v === '' || v === 0) continue;
    if (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0) continue;
    return false;
  }
  return true;
}

export function validateMetadataEmpty(m: ObjectMeta): FieldError[] {
  return metaIsEmpty(m, undefined) ? [] : [new InvalidStruct('metadata', goObjectMeta(m), 'must be empty')];
}

/** LocalSubjectAccessReview: its namespace is the one question it may carry in metadata, and the only one asked about. */
export function validateLocalSubjectAccessReview(m: ObjectMeta, spec: SubjectAccessReviewSpec): FieldError[] {
  const errs = validateSubjectAccessReviewSpec(spec);
  if (!metaIsEmpty(m, 'namespace')) errs.push(new InvalidStruct('metadata', goObjectMeta(m), 'must be empty except for namespace'));
  if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== (m.namespace ?? '')) {
    errs.push(invalid('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
  }
  if (spec.nonResourceAttributes) errs.push(new InvalidStruct('spec.nonResourceAttributes', goNonResourceAttributes(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  return errs;
}

function validateResourceAttributes(a: ResourceAttributes | undefined, path: string): FieldError[] {
  if (!a) return [];
  return [...validateSelectorAttributes(a.fieldSelector, `${path}.fieldSelector`, 'field'), ...validateSelectorAttributes(a.labelSelector, `${path}.labelSelector`, 'label')];
}

/**
 * rawSelector or requirements, not both and not neither; each requirement as metav1 validation checks it, with
 * unknown operators allowed (a newer client may know operators this server does not: they only narrow the request).
 */
function validateSelectorAttributes(s: FieldSelectorAttributes | LabelSelectorAttributes | undefined, path: string, kind: 'field' | 'label'): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const reqs = s.requirements ?? [];
  if (s.rawSelector && reqs.length) errs.push(invalid(`${path}.rawSelector`, s.rawSelector, 'may not specified at the same time as requirements'));
  if (!s.rawSelector && !reqs.length) errs.push(required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  reqs.forEach((r, i) => {
    const p = `${path}.requirements[${i}]`;
    const values = r.values ?? [];
    if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 0) errs.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length > 0) errs.push(forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    if (kind === 'label') {
      for (const msg of isQualifiedName(r.key ?? '')) errs.push(invalid(`${p}.key`, r.key ?? '', msg));
      values.forEach((v, j) => {
        for (const msg of isLabelValue(v)) errs.push(invalid(`${p}.values[${j}]`, v, msg));
      });
    }
  });
  return errs;
}
