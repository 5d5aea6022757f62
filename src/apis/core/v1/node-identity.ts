/**
 * Who is a node (upstream's default NodeIdentifier, `pkg/auth/nodeidentifier`): a user in group `system:nodes`
 * named `system:node:<name>`. Shared by the Node authorizer and NodeRestriction admission, so both agree.
 */
export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

/** `isNode` with `nodeName` '' for the bare prefix: a node, but not which one (upstream refuses it then). */
export function nodeIdentity(user: { readonly name: string; readonly groups: readonly string[] }): { isNode: boolean; nodeName: string } {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}
