/**
 * authorization/v1 definitions under upstream's OpenAPI names (`io.k8s.api.authorization.v1.*`; the cluster.io
 * spelling of the group gets `io.cluster.api.authorization.v1.*`), descriptions after k8s.io/api.
 */
import { type Definition, type Definitions, bool, defineAll, prop, ref, str } from '../../../apimachinery/schema.ts';
import { metaDefinitions, OBJECT_META, typeMeta } from '../../meta/v1/schema.ts';
import { LABEL_SELECTOR_REQUIREMENT, RBAC_DEFS } from '../../rbac/v1/schema.ts';
import { GROUP, type ReviewKind, VERSION } from './types.ts';

export const FIELD_SELECTOR_REQUIREMENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement';

/** The definition name of `local` (a kind or a nested type) in `group`. */
export function definitionName(group: string, local: string): string {
  return `${group === GROUP ? 'io.k8s.api.authorization' : 'io.cluster.api.authorization'}.${VERSION}.${local}`;
}

const strings = (description: string) => ({ type: 'array' as const, items: { type: 'string' as const }, description, listType: 'atomic' as const });

function selectorAttributes(n: (local: string) => string, kind: 'Field' | 'Label'): Definition {
  const requirement = kind === 'Field' ? FIELD_SELECTOR_REQUIREMENT : LABEL_SELECTOR_REQUIREMENT;
  return {
    name: n(`${kind}SelectorAttributes`),
    description: `${kind}SelectorAttributes indicates a ${kind.toLowerCase()} limited access. Set rawSelector or requirements, not both: the server parses rawSelector only when requirements are empty.`,
    properties: [
      prop('rawSelector', str(`The serialization of a ${kind.toLowerCase()} selector as it would be in a query parameter.`)),
      prop('requirements', { type: 'array', items: ref(requirement), description: 'The parsed interpretation of the selector; all must be met.', listType: 'atomic' }),
    ],
  };
}

export function authorizationDefinitions(group: string): Definitions {
  const n = (local: string) => definitionName(group, local);
  const gvk = (kind: ReviewKind) => [{ group, version: VERSION, kind }];
  const accessReview = (kind: ReviewKind, description: string, spec: string): Definition => ({
    name: n(kind),
    description,
    required: ['spec'],
    gvk: gvk(kind),
    properties: [
      ...typeMeta,
      prop('metadata', ref(OBJECT_META, 'Standard object metadata.'), true),
      prop('spec', ref(n(spec), 'Holds information about the request being evaluated.'), true),
      prop('status', ref(n('SubjectAccessReviewStatus'), 'Filled in by the server: whether the request is allowed or not.'), true),
    ],
  });
  const defs: Definition[] = [
    ...metaDefinitions,
    RBAC_DEFS.get(LABEL_SELECTOR_REQUIREMENT)!,
    {
      name: FIELD_SELECTOR_REQUIREMENT,
      description: 'A selector that contains values, a key, and an operator that relates the key and values.',
      required: ['key', 'operator'],
      properties: [
        prop('key', str('The field selector key that the requirement applies to.'), true),
        prop('operator', str("The key's relationship to the values: In, NotIn, Exists, DoesNotExist.")),
        prop('values', strings('Non-empty for In and NotIn, empty for Exists and DoesNotExist.')),
      ],
    },
    selectorAttributes(n, 'Field'),
    selectorAttributes(n, 'Label'),
    {
      name: n('ResourceAttributes'),
      description: 'The authorization attributes available for resource requests to the Authorizer interface.',
      properties: [
        prop('namespace', str('The namespace of the action being requested; "" means all namespaces for namespaced resources.')),
        prop('verb', str('A Kubernetes resource API verb: get, list, watch, create, update, delete, proxy. "*" means all.')),
        prop('group', str('The API group of the resource. "*" means all.')),
        prop('version', str('The API version of the resource. "*" means all.')),
        prop('resource', str('One of the existing resource types. "*" means all.')),
        prop('subresource', str('One of the existing subresources. "" means none.')),
        prop('name', str('The name of the resource being requested for a get or deleted for a delete. "" means all.')),
        prop('fieldSelector', ref(n('FieldSelectorAttributes'), 'Limits access by field; it can only limit access, not broaden it.')),
        prop('labelSelector', ref(n('LabelSelectorAttributes'), 'Limits access by label; it can only limit access, not broaden it.')),
      ],
    },
    {
      name: n('NonResourceAttributes'),
      description: 'The authorization attributes available for non-resource requests to the Authorizer interface.',
      properties: [prop('path', str('The URL path of the request.')), prop('verb', str('The standard HTTP verb.'))],
    },
    {
      name: n('SubjectAccessReviewSpec'),
      description: 'A description of the access request. Exactly one of resourceAttributes and nonResourceAttributes must be set.',
      properties: [
        prop('resourceAttributes', ref(n('ResourceAttributes'), 'Describes information for a resource access request.')),
        prop('nonResourceAttributes', ref(n('NonResourceAttributes'), 'Describes information for a non-resource access request.')),
        prop('user', str('The user you are testing for. A user without groups means "what if this user were in no groups".')),
        prop('groups', strings('The groups you are testing for.')),
        prop('extra', { type: 'map', values: { type: 'array', items: { type: 'string' } }, description: 'The user.Info extra of the authenticator, an input to the authorizer.' }),
        prop('uid', str('UID of the requesting user.')),
      ],
    },
    {
      name: n('SelfSubjectAccessReviewSpec'),
      description: 'A description of the access request. Exactly one of resourceAttributes and nonResourceAttributes must be set.',
      properties: [
        prop('resourceAttributes', ref(n('ResourceAttributes'), 'Describes information for a resource access request.')),
        prop('nonResourceAttributes', ref(n('NonResourceAttributes'), 'Describes information for a non-resource access request.')),
      ],
    },
    {
      name: n('SubjectAccessReviewStatus'),
      description: 'The answer to an access review.',
      required: ['allowed'],
      properties: [
        prop('allowed', bool('True if the action would be allowed, false otherwise.'), true),
        prop('denied', bool('True if the action would be denied. Both allowed and denied false: no authorizer had an opinion. Never true with allowed.')),
        prop('reason', str('Why the request was allowed or denied.')),
        prop('evaluationError', str('An error that occurred during the check; the decision may still stand despite it.')),
      ],
    },
    accessReview('SubjectAccessReview', 'SubjectAccessReview checks whether or not a user or group can perform an action.', 'SubjectAccessReviewSpec'),
    accessReview(
      'SelfSubjectAccessReview',
      'SelfSubjectAccessReview checks whether the current user can perform an action. Not filling in spec.namespace means "in all namespaces". Self is a special case: users may always check their own access.',
      'SelfSubjectAccessReviewSpec',
    ),
    accessReview(
      'LocalSubjectAccessReview',
      'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace; being namespaced, it can be granted by namespaced policy.',
      'SubjectAccessReviewSpec',
    ),
    {
      name: n('SelfSubjectRulesReviewSpec'),
      description: 'The namespace to list the rules of.',
      properties: [prop('namespace', str('Namespace to evaluate rules for. Required.'))],
    },
    {
      name: n('ResourceRule'),
      description: 'Actions the subject may perform on resources. The list ordering is not significant, may contain duplicates, and may be incomplete.',
      required: ['verbs'],
      properties: [
        prop('verbs', strings('Kubernetes resource API verbs. "*" means all.'), true),
        prop('apiGroups', strings('The API groups of the resources. "*" means all.')),
        prop('resources', strings('The resources; "*" means all in the API groups, "*/foo" the subresource foo of all.')),
        prop('resourceNames', strings('Names the rule is limited to; empty means all. "*" means all.')),
      ],
    },
    {
      name: n('NonResourceRule'),
      description: 'Actions the subject may perform on non-resource URLs.',
      required: ['verbs'],
      properties: [
        prop('verbs', strings('Non-resource API verbs: get, post, put, delete, patch, head, options. "*" means all.'), true),
        prop('nonResourceURLs', strings('Partial URLs; "*" is allowed only as the full, final step of the path. "*" means all.')),
      ],
    },
    {
      name: n('SubjectRulesReviewStatus'),
      description:
        'The result of a rules check; incomplete depending on the authorizers the server runs and the errors met. Rules are additive: a rule in the list is held even if the list is incomplete.',
      required: ['resourceRules', 'nonResourceRules', 'incomplete'],
      properties: [
        prop('resourceRules', { type: 'array', items: ref(n('ResourceRule')), description: 'What the subject may do on resources.', listType: 'atomic' }, true),
        prop('nonResourceRules', { type: 'array', items: ref(n('NonResourceRule')), description: 'What the subject may do on non-resource URLs.', listType: 'atomic' }, true),
        prop('incomplete', bool('True when the rules are incomplete, most often because an authorizer (a webhook) cannot list rules.'), true),
        prop('evaluationError', str('An error met during rule evaluation; the rules may then be incomplete.')),
      ],
    },
    {
      name: n('SelfSubjectRulesReview'),
      description:
        'SelfSubjectRulesReview enumerates the actions the current user can perform within a namespace, for UIs to show or hide actions. The list may be incomplete; authorization decisions belong to SubjectAccessReview.',
      required: ['spec'],
      gvk: gvk('SelfSubjectRulesReview'),
      properties: [
        ...typeMeta,
        prop('metadata', ref(OBJECT_META, 'Standard object metadata.'), true),
        prop('spec', ref(n('SelfSubjectRulesReviewSpec'), 'Holds information about the request being evaluated.'), true),
        prop('status', ref(n('SubjectRulesReviewStatus'), 'Filled in by the server: the actions the user can perform.'), true),
      ],
    },
  ];
  return defineAll(defs);
}
