/**
 * Who is a node (upstream's default NodeIdentifier, `pkg/auth/nodeidentifier`): a user in group `system:nodes`
 * named `system:node:<name>`. Shared by the Node authorizer and NodeRestriction admission, so both agree; and what
 * a node may do (the Node authorizer's rules, also the bootstrap ClusterRole `system:node`).
 */
import type { PolicyRule } from '../../rbac/v1/types.ts';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

/** `isNode` with `nodeName` '' for the bare prefix: a node, but not which one (upstream refuses it then). */
export function nodeIdentity(user: { readonly name: string; readonly groups: readonly string[] }): { isNode: boolean; nodeName: string } {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}

/** Upstream's NodeRules, narrowed to what this server serves (Events also in events.cluster.io, its events group). */
export const NODE_RULES: readonly PolicyRule[] = Object.freeze([
  // API access checks (non-mutating creates).
  { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] },
  { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews', 'localsubjectaccessreviews'] },
  // A node registers its Node and reports status; NodeRestriction limits it to its own object.
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes/status'] },
  { verbs: ['update', 'patch'], apiGroups: [''], resources: ['nodes'] },
  { verbs: ['create', 'update', 'patch'], apiGroups: ['', 'events.cluster.io'], resources: ['events'] },
  // TLS bootstrap and certificate rotation: a node files its own CSRs and watches them.
  { verbs: ['create', 'get', 'list', 'watch'], apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'] },
]);

