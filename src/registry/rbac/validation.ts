/**
 * Upstream's RBAC validation (`pkg/apis/rbac/validation/validation.go`), with its field paths and texts. ObjectMeta
 * (names are path segments) is checked by the generic store.
 */
import type { FieldError } from '../../apimachinery/field.ts';
import { invalid, notSupported, required } from '../../apimachinery/field.ts';
import { isQualifiedName, nameIsDNSSubdomain, nameIsPathSegment } from '../../apimachinery/validation/content.ts';
import { validateLabels } from '../../apimachinery/validation/objectmeta.ts';
import type { AggregationRule, ClusterRole, LabelSelectorSpec, PolicyRule, Role, RoleBinding, Subject } from '../../apis/rbac/v1/types.ts';
import { GROUP, GROUP_KIND, SERVICE_ACCOUNT_KIND, USER_KIND } from '../../apis/rbac/v1/types.ts';

export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!rule.verbs?.length) errs.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (rule.nonResourceURLs?.length) {
    if (namespaced) errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (rule.apiGroups?.length || rule.resources?.length) {
      errs.push(invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!rule.apiGroups?.length) errs.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (!rule.resources?.length) errs.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: PolicyRule[] | null | undefined, namespaced: boolean): FieldError[] {
  return (rules ?? []).flatMap((r, i) => validatePolicyRule(r, namespaced, `rules[${i}]`));
}

export function validateRole(role: Role): FieldError[] {
  return validateRules(role.rules, true);
}

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** upstream ValidateLabelSelector (metav1 validation). */
function validateLabelSelector(s: LabelSelectorSpec, path: string): FieldError[] {
  const errs = validateLabels(s.matchLabels, `${path}.matchLabels`);
  (s.matchExpressions ?? []).forEach((e, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const values = e.values ?? [];
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (!values.length) errs.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length) errs.push(invalid(`${p}.values`, values, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(notSupported(`${p}.operator`, e.operator, SELECTOR_OPERATORS));
    }
    for (const msg of isQualifiedName(e.key ?? '')) errs.push(invalid(`${p}.key`, e.key ?? '', msg));
  });
  return errs;
}

function validateAggregationRule(rule: AggregationRule | undefined): FieldError[] {
  if (!rule) return [];
  const selectors = rule.clusterRoleSelectors ?? [];
  if (!selectors.length) return [required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return selectors.flatMap((s, i) => validateLabelSelector(s, `aggregationRule.clusterRoleSelectors[${i}]`));
}

export function validateClusterRole(role: ClusterRole): FieldError[] {
  return [...validateRules(role.rules, false), ...validateAggregationRule(role.aggregationRule)];
}

function validateSubject(s: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(required(`${path}.name`));
  switch (s.kind) {
    case SERVICE_ACCOUNT_KIND:
      if (s.name) for (const msg of nameIsDNSSubdomain(s.name, false)) errs.push(invalid(`${path}.name`, s.name, msg));
      if (s.apiGroup) errs.push(notSupported(`${path}.apiGroup`, s.apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(required(`${path}.namespace`));
      break;
    case USER_KIND:
    case GROUP_KIND:
      if (s.apiGroup !== GROUP) errs.push(notSupported(`${path}.apiGroup`, s.apiGroup ?? '', [GROUP]));
      break;
    default:
      errs.push(notSupported(`${path}.kind`, s.kind ?? '', [SERVICE_ACCOUNT_KIND, USER_KIND, GROUP_KIND]));
  }
  return errs;
}

/** RoleBindings may reference a Role or a ClusterRole; ClusterRoleBindings only a ClusterRole. */
export function validateBinding(b: RoleBinding, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = b.roleRef ?? { apiGroup: '', kind: '', name: '' };
  if (ref.apiGroup !== GROUP) errs.push(notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind)) errs.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(required('roleRef.name'));
  else for (const msg of nameIsPathSegment(ref.name, false)) errs.push(invalid('roleRef.name', ref.name, msg));
  (b.subjects ?? []).forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  return errs;
}

export function validateBindingUpdate(b: RoleBinding, old: RoleBinding, namespaced: boolean): FieldError[] {
  const errs = validateBinding(b, namespaced);
  const a = b.roleRef;
  const o = old.roleRef;
  if (a?.apiGroup !== o?.apiGroup || a?.kind !== o?.kind || a?.name !== o?.name) errs.push(invalid('roleRef', a, 'cannot change roleRef'));
  return errs;
}
