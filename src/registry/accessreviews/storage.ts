/**
 * The access reviews of authorization.k8s.io/v1 (upstream `pkg/registry/authorization/*`), create-only and stored
 * nowhere, served in that group (which kubectl hard-codes) and as authorization.cluster.io/v1:
 *
 *   SelfSubjectAccessReview   may I? (`kubectl auth can-i`), answered by the server's whole authorizer chain
 *   SelfSubjectRulesReview    what may I do in a namespace? (`kubectl auth can-i --list`), from the rule resolvers
 *   SubjectAccessReview       may this user? for whoever the authorizer lets create subjectaccessreviews
 *   LocalSubjectAccessReview  the same, namespaced, so a namespace admin can ask about their own namespace
 *
 * Each answer is the request object with its status filled in (the rules review: a new object holding only the
 * status, as upstream); invalid requests get upstream's 422 and 400 texts.
 */
import type { AdmissionUser } from '../../admission/interfaces.ts';
import { REVIEW_PROTOBUF } from '../../apis/authorization/v1/protobuf.ts';
import { authorizationDefinitions, definitionName } from '../../apis/authorization/v1/schema.ts';
import {
  type AccessReview,
  CLUSTER_GROUP,
  GROUP,
  REVIEW_KINDS,
  type ReviewKind,
  type SelfSubjectRulesReview,
  VERSION,
} from '../../apis/authorization/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { FieldError } from '../../apimachinery/field.ts';
import { newBadRequest, newInvalid } from '../../apimachinery/errors.ts';
import { type CreateOnlyDefinition, registerCreateOnly } from '../generic/create-only.ts';
import type { ResourceScope } from '../rest/scope.ts';
import { type Authorizer, decide, type RuleResolver, subjectOf, type UserInfo } from './attributes.ts';
import { validateLocalSubjectAccessReview, validateMetadataEmpty, validateSelfSubjectAccessReviewSpec, validateSubjectAccessReviewSpec } from './validation.ts';

export interface AccessReviewOptions {
  /** The server's authorizer chain (read at each review: it is built after the resources). */
  authorizer(): Authorizer;
  /** The rule resolvers of the chain's authorizers, for SelfSubjectRulesReview. */
  ruleResolver(): RuleResolver;
}

function userOf(u: AdmissionUser): UserInfo {
  const user: UserInfo = { name: u.name, groups: [...u.groups] };
  if (u.uid) user.uid = u.uid;
  if (u.extra) user.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return user;
}

/** Upstream's 422 names the kind in the authorization group: `SubjectAccessReview.authorization.k8s.io "" is invalid: …`. */
function check(group: string, kind: ReviewKind, errs: FieldError[]): void {
  if (errs.length) throw newInvalid({ group, kind }, '', errs);
}

/** The four reviews of one group spelling. */
function reviewsOf(group: string, opts: AccessReviewOptions): CreateOnlyDefinition<KubeObject>[] {
  const defs = authorizationDefinitions(group);
  const base = (kind: ReviewKind) => ({
    group,
    version: VERSION,
    kind,
    resource: REVIEW_KINDS[kind].resource,
    singular: kind.toLowerCase(),
    namespaced: REVIEW_KINDS[kind].namespaced,
    defs,
    definition: definitionName(group, kind),
    protobuf: REVIEW_PROTOBUF[kind],
  });
  const asReview = (obj: KubeObject) => obj as AccessReview;
  return [
    {
      ...base('SubjectAccessReview'),
      validate: (obj) => {
        const r = asReview(obj);
        check(group, 'SubjectAccessReview', [...validateSubjectAccessReviewSpec(r.spec ?? {}), ...validateMetadataEmpty(r.metadata)]);
      },
      create: async (obj) => {
        const r = asReview(obj);
        return (await decide(opts.authorizer(), r, subjectOf(r.spec ?? {}))) as KubeObject;
      },
    },
    {
      ...base('SelfSubjectAccessReview'),
      validate: (obj) => {
        const r = asReview(obj);
        check(group, 'SelfSubjectAccessReview', [...validateSelfSubjectAccessReviewSpec(r.spec ?? {}), ...validateMetadataEmpty(r.metadata)]);
      },
      // The asker is the subject, whatever user or groups the spec might carry (its schema has none).
      create: async (obj, user) => (await decide(opts.authorizer(), asReview(obj), userOf(user))) as KubeObject,
    },
    {
      ...base('LocalSubjectAccessReview'),
      validate: (obj, namespace) => {
        const r = asReview(obj);
        check(group, 'LocalSubjectAccessReview', validateLocalSubjectAccessReview(r.metadata, r.spec ?? {}));
        // Unreachable through the namespaced route (the object takes the URL's namespace or is refused before),
        // kept as upstream's guard.
        if (!namespace) throw newBadRequest(`namespace is required on this type: ${namespace}`);
        if (namespace !== (r.metadata.namespace ?? '')) throw newBadRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
      },
      create: async (obj) => {
        const r = asReview(obj);
        return (await decide(opts.authorizer(), r, subjectOf(r.spec ?? {}))) as KubeObject;
      },
    },
    {
      ...base('SelfSubjectRulesReview'),
      create: (obj, user) => {
        const namespace = (obj as SelfSubjectRulesReview).spec?.namespace ?? '';
        if (!namespace) throw newBadRequest('no namespace on request');
        const rules = opts.ruleResolver().rulesFor(userOf(user), namespace);
        const answer: SelfSubjectRulesReview = {
          kind: 'SelfSubjectRulesReview',
          apiVersion: `${group}/${VERSION}`,
          metadata: {},
          spec: {},
          status: {
            resourceRules: rules.resourceRules.map((r) => ({
              verbs: r.verbs,
              ...(r.apiGroups.length ? { apiGroups: r.apiGroups } : {}),
              ...(r.resources.length ? { resources: r.resources } : {}),
              ...(r.resourceNames.length ? { resourceNames: r.resourceNames } : {}),
            })),
            nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: r.verbs, ...(r.nonResourceURLs.length ? { nonResourceURLs: r.nonResourceURLs } : {}) })),
            incomplete: rules.incomplete,
            ...(rules.error ? { evaluationError: rules.error.message } : {}),
          },
        };
        return answer;
      },
    },
  ];
}

/** The scopes to serve: four kinds in each of the two group spellings. */
export function registerAccessReviews(opts: AccessReviewOptions): ResourceScope[] {
  return [GROUP, CLUSTER_GROUP].flatMap((group) => reviewsOf(group, opts).map((def) => registerCreateOnly(def)));
}
