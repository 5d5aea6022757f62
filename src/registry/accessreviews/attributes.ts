/**
 * What a review asks, as authorizer attributes (upstream `pkg/registry/authorization/util`): the user is the asker
 * (self reviews) or the spec's user, groups, uid and extra; an empty version means every version. Selectors do not
 * reach the authorizers here (RBAC ignores them, as upstream's does), but a selector that does not parse is reported
 * in evaluationError exactly as upstream reports it: the request was judged without it.
 */
import type { AccessReview, FieldSelectorAttributes, LabelSelectorAttributes, ResourceAttributes, SubjectAccessReviewSpec, SubjectAccessReviewStatus } from '../../apis/authorization/v1/types.ts';
import { parseFieldSelector } from '../../apimachinery/fields/selector.ts';
import { parseLabelSelector } from '../../apimachinery/labels/selector.ts';
import { isLabelValue, isQualifiedName } from '../../apimachinery/validation/content.ts';

/**
 * The authorizer's contract as the reviews see it: the shapes of src/auth's UserInfo, Attributes and
 * AuthorizationResult, restated here because the registry does not import the auth layer (as the RBAC escalation
 * check takes its authorizer as a callback); the server's authorizer fits them as it is.
 */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface Attributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly path: string;
  readonly isResourceRequest: boolean;
}

export interface AuthorizationResult {
  readonly decision: 'Allow' | 'Deny' | 'NoOpinion';
  readonly reason: string;
  readonly error?: Error | undefined;
}

export interface Authorizer {
  authorize(a: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** The rule resolvers' answer (src/auth/authorizer/rules.ts RulesResult). */
export interface RulesResult {
  resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  incomplete: boolean;
  error?: Error | undefined;
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesResult;
}

export function resourceAttributesFrom(user: UserInfo, a: ResourceAttributes): Attributes {
  return {
    user,
    verb: a.verb ?? '',
    namespace: a.namespace ?? '',
    apiGroup: a.group ?? '',
    apiVersion: a.version || '*',
    resource: a.resource ?? '',
    subresource: a.subresource ?? '',
    name: a.name ?? '',
    path: '',
    isResourceRequest: true,
  };
}

/** The attributes of whichever part the (validated) spec carries. */
export function attributesFrom(user: UserInfo, spec: SubjectAccessReviewSpec): Attributes {
  if (spec.resourceAttributes) return resourceAttributesFrom(user, spec.resourceAttributes);
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path: n.path ?? '', isResourceRequest: false };
}

/** The user a SubjectAccessReview asks about. */
export function subjectOf(spec: SubjectAccessReviewSpec): UserInfo {
  const u: UserInfo = { name: spec.user ?? '', groups: [...(spec.groups ?? [])] };
  if (spec.uid) u.uid = spec.uid;
  if (spec.extra) u.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, [...(v ?? [])]]));
  return u;
}

type Outcome = 'ok' | 'partial' | 'ignored';

/** How much of a selector upstream would keep: all, some requirements (the others dropped with an error), or none. */
function selectorOutcome(s: FieldSelectorAttributes | LabelSelectorAttributes | undefined, kind: 'field' | 'label'): Outcome {
  if (!s) return 'ok';
  const reqs = s.requirements ?? [];
  if (reqs.length) {
    let good = 0;
    for (const r of reqs) if (kind === 'field' ? fieldRequirementOK(r) : labelRequirementOK(r)) good++;
    return good === reqs.length ? 'ok' : good ? 'partial' : 'ignored';
  }
  if (!s.rawSelector) return 'ok';
  try {
    if (kind === 'field') parseFieldSelector(s.rawSelector);
    else parseLabelSelector(s.rawSelector);
    return 'ok';
  } catch {
    return 'ignored';
  }
}

/** Field requirements upstream turns into a selector: In and NotIn with exactly one value. */
function fieldRequirementOK(r: { operator: string; values?: string[] }): boolean {
  return (r.operator === 'In' || r.operator === 'NotIn') && (r.values?.length ?? 0) === 1;
}

/** Label requirements labels.NewRequirement accepts. */
function labelRequirementOK(r: { key: string; operator: string; values?: string[] }): boolean {
  const values = r.values ?? [];
  if (isQualifiedName(r.key ?? '').length) return false;
  switch (r.operator) {
    case 'In':
    case 'NotIn':
      return values.length > 0 && values.every((v) => isLabelValue(v).length === 0);
    case 'Exists':
    case 'DoesNotExist':
      return values.length === 0;
    default:
      return false;
  }
}

/** Upstream's BuildEvaluationError: the authorizer's error, then what was dropped of the selectors, joined by `; `. */
export function evaluationError(error: Error | undefined, spec: SubjectAccessReviewSpec): string {
  const parts: string[] = [];
  if (error) parts.push(error.message);
  const a = spec.resourceAttributes;
  for (const [name, outcome] of [
    ['fieldSelector', selectorOutcome(a?.fieldSelector, 'field')],
    ['labelSelector', selectorOutcome(a?.labelSelector, 'label')],
  ] as const) {
    if (outcome === 'partial') parts.push(`spec.resourceAttributes.${name} partially ignored due to parse error`);
    if (outcome === 'ignored') parts.push(`spec.resourceAttributes.${name} ignored due to parse error`);
  }
  return parts.join('; ');
}

/** Asks the authorizer and writes its answer into the review's status (allowed, denied, reason, evaluationError). */
export async function decide(authorizer: Authorizer, review: AccessReview, user: UserInfo): Promise<AccessReview> {
  const spec = review.spec ?? {};
  let d: AuthorizationResult;
  try {
    d = await authorizer.authorize(attributesFrom(user, spec));
  } catch (e) {
    // An authorizer that throws could not decide; the review says so rather than failing the request.
    d = { decision: 'NoOpinion', reason: '', error: e instanceof Error ? e : new Error(String(e)) };
  }
  const status: SubjectAccessReviewStatus = { allowed: d.decision === 'Allow' };
  if (d.decision === 'Deny') status.denied = true;
  if (d.reason) status.reason = d.reason;
  const evalErr = evaluationError(d.error, spec);
  if (evalErr) status.evaluationError = evalErr;
  review.status = status;
  return review;
}
