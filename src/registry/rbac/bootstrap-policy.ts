/**
 * The bootstrap roles and bindings the server creates and reconciles at start (upstream
 * `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go`), narrowed to what this server serves: Events (in
 * events.cluster.io and the core group, the same objects), the RBAC kinds, the review kinds, and the discovery,
 * health, version, metrics and debugging paths. As upstream, view/edit/admin read Events and none writes them;
 * writers bind `system:event-writer`.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Subject } from '../../apis/rbac/v1/types.ts';
import { AUTOUPDATE_ANNOTATION, GROUP, GROUP_KIND, GROUP_VERSION } from '../../apis/rbac/v1/types.ts';
import { NODE_RULES } from '../../apis/core/v1/node-identity.ts';

const READ = ['get', 'list', 'watch'];
const CERTIFICATES_GROUP = 'certificates.k8s.io';
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
/** Both groups in which Events are served. */
const EVENT_GROUPS = ['', 'events.cluster.io'];

/** The access reviews (like SelfSubjectReview) are served under upstream's group name and this project's spelling of it. */
const REVIEW_GROUPS = ['authorization.k8s.io', 'authorization.cluster.io'];

const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AGGREGATE_TO = (role: string) => `rbac.authorization.k8s.io/aggregate-to-${role}`;

function clusterRole(name: string, rules: PolicyRule[], extra: Partial<ClusterRole> & { labels?: Record<string, string> } = {}): ClusterRole {
  const { labels, ...rest } = extra;
  return {
    apiVersion: GROUP_VERSION,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS, ...labels }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    rules,
    ...rest,
  };
}

function aggregated(name: string, to: string, labels: Record<string, string> = {}): ClusterRole {
  return clusterRole(name, [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(to)]: 'true' } }] }, labels });
}

const group = (name: string): Subject => ({ kind: GROUP_KIND, apiGroup: GROUP, name });

function binding(name: string, role: string, subjects: Subject[]): ClusterRoleBinding {
  return {
    apiVersion: GROUP_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAP_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    subjects,
    roleRef: { apiGroup: GROUP, kind: 'ClusterRole', name: role },
  };
}

export const BOOTSTRAP_CLUSTER_ROLES: ClusterRole[] = [
  clusterRole('cluster-admin', [
    { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['*'], nonResourceURLs: ['*'] },
  ]),
  clusterRole('system:discovery', [
    { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] },
  ]),
  clusterRole('system:basic-user', [
    { verbs: ['create'], apiGroups: REVIEW_GROUPS, resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io', 'authentication.cluster.io'], resources: ['selfsubjectreviews'] },
  ]),
  clusterRole('system:public-info-viewer', [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] }]),
  clusterRole('system:monitoring', [
    {
      verbs: ['get'],
      nonResourceURLs: ['/metrics', '/metrics/slis', '/statusz', '/flagz', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'],
    },
  ]),
  aggregated('admin', 'admin'),
  aggregated('edit', 'edit', { [AGGREGATE_TO('admin')]: 'true' }),
  aggregated('view', 'view', { [AGGREGATE_TO('edit')]: 'true' }),
  clusterRole(
    'system:aggregate-to-admin',
    [
      { verbs: [...READ, ...WRITE], apiGroups: [GROUP], resources: ['rolebindings', 'roles'] },
      { verbs: ['create'], apiGroups: REVIEW_GROUPS, resources: ['localsubjectaccessreviews'] },
    ],
    { labels: { [AGGREGATE_TO('admin')]: 'true' } },
  ),
  // upstream's edit writes workloads, and Events are not among them; what it has here is upstream's impersonation
  // of the namespace's service accounts (`kubectl --as=system:serviceaccount:<ns>:<name>`).
  clusterRole('system:aggregate-to-edit', [{ verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'] }], {
    labels: { [AGGREGATE_TO('edit')]: 'true' },
  }),
  clusterRole('system:aggregate-to-view', [{ verbs: READ, apiGroups: EVENT_GROUPS, resources: ['events'] }], { labels: { [AGGREGATE_TO('view')]: 'true' } }),
  // Everything but reading, which view grants: a team bound to view (or edit) and this one owns its namespace's Events.
  clusterRole('system:event-writer', [{ verbs: WRITE, apiGroups: EVENT_GROUPS, resources: ['events'] }]),
  // The Node authorizer's rules as a role, bound to nobody by default (upstream since 1.8): the Node authorizer is
  // what lets nodes in; binding this role gives the same rules through RBAC (NodeRestriction still limits nodes).
  // Node TLS bootstrap (upstream's names): a bootstrap identity may file CSRs; the approver asks whether the requester
  // may create the nodeclient / selfnodeclient subresource; approving for a signer is the `approve` verb on it.
  clusterRole('system:node-bootstrapper', [{ verbs: ['create', 'get', 'list', 'watch'], apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests'] }]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [{ verbs: ['create'], apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests/nodeclient'] }]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [{ verbs: ['create'], apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests/selfnodeclient'] }]),
  ...[
    ['kube-apiserver-client-approver', 'kubernetes.io/kube-apiserver-client'],
    ['kube-apiserver-client-kubelet-approver', 'kubernetes.io/kube-apiserver-client-kubelet'],
    ['kubelet-serving-approver', 'kubernetes.io/kubelet-serving'],
    ['legacy-unknown-approver', 'kubernetes.io/legacy-unknown'],
  ].map(([name, signer]) => clusterRole(`system:certificates.k8s.io:${name}`, [{ verbs: ['approve'], apiGroups: [CERTIFICATES_GROUP], resources: ['signers'], resourceNames: [signer!] }])),
  clusterRole('system:node', NODE_RULES.map((r) => ({ ...r, verbs: [...r.verbs], apiGroups: [...(r.apiGroups ?? [])], resources: [...(r.resources ?? [])] }))),
  // What a server that delegates authentication and authorization to this one needs (a node agent with
  // --authentication-token-webhook and --authorization-mode=Webhook, an aggregated API server); bound to nobody.
  clusterRole('system:auth-delegator', [
    { verbs: ['create'], apiGroups: ['authentication.k8s.io', 'authentication.cluster.io'], resources: ['tokenreviews'] },
    { verbs: ['create'], apiGroups: REVIEW_GROUPS, resources: ['subjectaccessreviews'] },
  ]),
  // Everything on the node agents' API: for the identity the node proxy presents to them (--kubelet-client-certificate)
  // when it is not in system:masters; bound to nobody, as upstream (installers bind it).
  clusterRole('system:kubelet-api-admin', [
    { verbs: READ, apiGroups: [''], resources: ['nodes'] },
    { verbs: ['proxy'], apiGroups: [''], resources: ['nodes'] },
    { verbs: ['*'], apiGroups: [''], resources: ['nodes/proxy', 'nodes/metrics', 'nodes/spec', 'nodes/stats', 'nodes/log'] },
  ]),
];

export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: ClusterRoleBinding[] = [
  binding('cluster-admin', 'cluster-admin', [group('system:masters')]),
  binding('system:discovery', 'system:discovery', [group('system:authenticated')]),
  binding('system:basic-user', 'system:basic-user', [group('system:authenticated')]),
  binding('system:public-info-viewer', 'system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  binding('system:monitoring', 'system:monitoring', [group('system:monitoring')]),
  // Not upstream's API server policy but the bindings kubeadm creates for node TLS bootstrap (same names), so that a
  // corelet with a bootstrap credential (group system:bootstrappers) gets its client certificate without a person,
  // and a node renews its own: without them no CSR is ever approved automatically.
  binding('kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', [group('system:bootstrappers')]),
  binding('kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', [group('system:bootstrappers')]),
  binding('kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [group('system:nodes')]),
];
