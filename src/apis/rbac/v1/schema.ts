/**
 * rbac.authorization.k8s.io/v1 definitions under upstream's OpenAPI names (`io.k8s.api.rbac.v1.*`): the group is
 * upstream's, and kubectl looks its kinds up by these names.
 */
import { type Definition, type Definitions, defineAll, prop, ref, str } from '../../../apimachinery/schema.ts';
import { OBJECT_META, listDefinition, metaDefinitions, typeMeta } from '../../meta/v1/schema.ts';
import { GROUP, VERSION } from './types.ts';

export const POLICY_RULE = 'io.k8s.api.rbac.v1.PolicyRule';
export const SUBJECT = 'io.k8s.api.rbac.v1.Subject';
export const ROLE_REF = 'io.k8s.api.rbac.v1.RoleRef';
export const AGGREGATION_RULE = 'io.k8s.api.rbac.v1.AggregationRule';
export const LABEL_SELECTOR = 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector';
export const LABEL_SELECTOR_REQUIREMENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement';
export const ROLE = 'io.k8s.api.rbac.v1.Role';
export const ROLE_LIST = 'io.k8s.api.rbac.v1.RoleList';
export const ROLE_BINDING = 'io.k8s.api.rbac.v1.RoleBinding';
export const ROLE_BINDING_LIST = 'io.k8s.api.rbac.v1.RoleBindingList';
export const CLUSTER_ROLE = 'io.k8s.api.rbac.v1.ClusterRole';
export const CLUSTER_ROLE_LIST = 'io.k8s.api.rbac.v1.ClusterRoleList';
export const CLUSTER_ROLE_BINDING = 'io.k8s.api.rbac.v1.ClusterRoleBinding';
export const CLUSTER_ROLE_BINDING_LIST = 'io.k8s.api.rbac.v1.ClusterRoleBindingList';

const strings = (description: string) => ({ type: 'array' as const, items: { type: 'string' as const }, description, listType: 'atomic' as const });
const gvk = (kind: string) => [{ group: GROUP, version: VERSION, kind }];
const metadata = prop('metadata', ref(OBJECT_META, 'Standard object metadata.'));

const rbacDefinitions: Definition[] = [
  {
    name: LABEL_SELECTOR_REQUIREMENT,
    description: 'A selector requirement: a key, an operator and values.',
    required: ['key', 'operator'],
    properties: [
      prop('key', str('The label key that the selector applies to.')),
      prop('operator', str("The key's relationship to the values: In, NotIn, Exists or DoesNotExist.")),
      prop('values', strings('Values; non-empty for In and NotIn, empty for Exists and DoesNotExist.')),
    ],
  },
  {
    name: LABEL_SELECTOR,
    description: 'A label query over a set of objects; the requirements are ANDed. An empty selector matches everything.',
    structType: 'atomic',
    properties: [
      prop('matchLabels', { type: 'map', values: { type: 'string' }, description: 'Each pair is an In requirement with one value.' }),
      prop('matchExpressions', { type: 'array', items: ref(LABEL_SELECTOR_REQUIREMENT), description: 'Label selector requirements.', listType: 'atomic' }),
    ],
  },
  {
    name: POLICY_RULE,
    description: 'What a rule allows: verbs on resources of API groups (optionally by name), or on non-resource URLs.',
    required: ['verbs'],
    properties: [
      prop('verbs', strings("Verbs the rule allows; '*' is all of them."), true),
      prop('apiGroups', strings("API groups of the resources; '' is the core group, '*' all groups.")),
      prop('resources', strings("Resources the rule applies to; '*' all, '*/sub' a subresource of all.")),
      prop('resourceNames', strings('Names the rule is limited to; empty means all.')),
      prop('nonResourceURLs', strings("Partial URLs a user may reach; a final '*' matches any suffix. Only in ClusterRoles.")),
    ],
  },
  {
    name: SUBJECT,
    description: 'Who a binding is for: a user, a group or a service account.',
    structType: 'atomic',
    required: ['kind', 'name'],
    properties: [
      prop('kind', str('User, Group or ServiceAccount.'), true),
      prop('apiGroup', str('"" for ServiceAccount; rbac.authorization.k8s.io for User and Group.')),
      prop('name', str('Name of the subject.'), true),
      prop('namespace', str('Namespace of a ServiceAccount subject.')),
    ],
  },
  {
    name: ROLE_REF,
    description: 'The role a binding grants.',
    structType: 'atomic',
    required: ['apiGroup', 'kind', 'name'],
    properties: [prop('apiGroup', str('Group of the referenced role.'), true), prop('kind', str('Role or ClusterRole.'), true), prop('name', str('Name of the role.'), true)],
  },
  {
    name: AGGREGATION_RULE,
    description: 'How a ClusterRole is built from other ClusterRoles.',
    properties: [
      prop('clusterRoleSelectors', {
        type: 'array',
        items: ref(LABEL_SELECTOR),
        description: "Selectors of the ClusterRoles whose rules are combined into this one's; the server maintains its rules.",
        listType: 'atomic',
      }),
    ],
  },
  {
    name: ROLE,
    description: 'A namespaced set of rules, bound by a RoleBinding.',
    gvk: gvk('Role'),
    properties: [...typeMeta, metadata, prop('rules', { type: 'array', items: ref(POLICY_RULE), description: 'The rules of this Role.', listType: 'atomic' }, true)],
  },
  {
    name: ROLE_BINDING,
    description: 'Grants the rules of a Role, or of a ClusterRole within this namespace, to subjects.',
    required: ['roleRef'],
    gvk: gvk('RoleBinding'),
    properties: [
      ...typeMeta,
      metadata,
      prop('subjects', { type: 'array', items: ref(SUBJECT), description: 'Who the role is granted to.', listType: 'atomic' }),
      prop('roleRef', ref(ROLE_REF, 'A Role in this namespace or a ClusterRole. Cannot be updated.'), true),
    ],
  },
  {
    name: CLUSTER_ROLE,
    description: 'A cluster-wide set of rules, bound by a RoleBinding (in one namespace) or a ClusterRoleBinding.',
    gvk: gvk('ClusterRole'),
    properties: [
      ...typeMeta,
      metadata,
      prop('rules', { type: 'array', items: ref(POLICY_RULE), description: 'The rules of this ClusterRole.', listType: 'atomic' }, true),
      prop('aggregationRule', ref(AGGREGATION_RULE, 'When set, the server maintains the rules from the selected ClusterRoles.')),
    ],
  },
  {
    name: CLUSTER_ROLE_BINDING,
    description: 'Grants the rules of a ClusterRole to subjects in every namespace.',
    required: ['roleRef'],
    gvk: gvk('ClusterRoleBinding'),
    properties: [
      ...typeMeta,
      metadata,
      prop('subjects', { type: 'array', items: ref(SUBJECT), description: 'Who the role is granted to.', listType: 'atomic' }),
      prop('roleRef', ref(ROLE_REF, 'A ClusterRole. Cannot be updated.'), true),
    ],
  },
  listDefinition(ROLE_LIST, ROLE, { group: GROUP, version: VERSION, kind: 'RoleList' }, 'A list of Roles.', 'The Roles.'),
  listDefinition(ROLE_BINDING_LIST, ROLE_BINDING, { group: GROUP, version: VERSION, kind: 'RoleBindingList' }, 'A list of RoleBindings.', 'The RoleBindings.'),
  listDefinition(CLUSTER_ROLE_LIST, CLUSTER_ROLE, { group: GROUP, version: VERSION, kind: 'ClusterRoleList' }, 'A list of ClusterRoles.', 'The ClusterRoles.'),
  listDefinition(CLUSTER_ROLE_BINDING_LIST, CLUSTER_ROLE_BINDING, { group: GROUP, version: VERSION, kind: 'ClusterRoleBindingList' }, 'A list of ClusterRoleBindings.', 'The ClusterRoleBindings.'),
];

export const RBAC_DEFS: Definitions = defineAll([...metaDefinitions, ...rbacDefinitions]);
