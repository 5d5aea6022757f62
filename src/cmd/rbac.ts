/**
 * RBAC in the server: the four rbac.authorization.k8s.io/v1 resources on their group's storage, the in-memory
 * index the authorizer reads, the bootstrap policy, ClusterRole aggregation, and escalation prevention.
 */
import type { AdmissionUser } from '../admission/interfaces.ts';
import { GROUP } from '../apis/rbac/v1/types.ts';
import { RBACAuthorizer } from '../auth/authorizer/rbac.ts';
import type { Authorizer } from '../auth/authorizer/interface.ts';
import type { RegisterOptions } from '../registry/generic/registration.ts';
import { registerClusterRoleBindings } from '../registry/clusterrolebindings/storage.ts';
import { registerClusterRoles } from '../registry/clusterroles/storage.ts';
import { startClusterRoleAggregation } from '../registry/rbac/aggregation.ts';
import { RBACEscalationPlugin } from '../registry/rbac/escalation.ts';
import { ensureBootstrapPolicy } from '../registry/rbac/reconcile.ts';
import { RbacIndex, type RbacResources } from '../registry/rbac/source.ts';
import type { ResourceScope } from '../registry/rest/scope.ts';
import { registerRoleBindings } from '../registry/rolebindings/storage.ts';
import { registerRoles } from '../registry/roles/storage.ts';
import type { KubeObject } from '../apis/meta/v1/types.ts';
import type { Storage } from '../storage/interface.ts';
import type { Scheme } from '../storage/scheme.ts';

export interface RbacServing {
  resources: RbacResources;
  scopes: ResourceScope[];
  authorizer: RBACAuthorizer;
  /** The escalation plugin, asking `chain` (the whole authorizer union) for `escalate` and `bind`. */
  escalation(chain: () => Authorizer): RBACEscalationPlugin;
  stop(): void;
}

export async function startRbac(opts: { storage: Storage; scheme: Scheme; privilegedGroups: string[] } & Omit<RegisterOptions, 'storage' | 'scheme'>): Promise<RbacServing> {
  const { privilegedGroups, ...reg } = opts;
  const [roles, roleBindings, clusterRoles, clusterRoleBindings] = await Promise.all([
    registerRoles(reg),
    registerRoleBindings(reg),
    registerClusterRoles(reg),
    registerClusterRoleBindings(reg),
  ]);
  const resources: RbacResources = { roles, roleBindings, clusterRoles, clusterRoleBindings };
  const index = new RbacIndex(resources);
  await index.start();
  await ensureBootstrapPolicy({ clusterRoles: clusterRoles.store, clusterRoleBindings: clusterRoleBindings.store });
  const aggregation = startClusterRoleAggregation(index, clusterRoles.store);
  return {
    resources,
    scopes: [roles.scope, roleBindings.scope, clusterRoles.scope, clusterRoleBindings.scope] as ResourceScope<KubeObject>[],
    authorizer: new RBACAuthorizer(index),
    escalation: (chain) =>
      new RBACEscalationPlugin({
        source: index,
        privilegedGroups,
        authorize: async (user: AdmissionUser, verb, resource, namespace, name) => {
          const r = await chain().authorize({
            user: { name: user.name, groups: [...user.groups] },
            verb,
            namespace,
            apiGroup: GROUP,
            apiVersion: '*',
            resource,
            subresource: '',
            name,
            path: '',
            isResourceRequest: true,
          });
          return r.decision === 'Allow';
        },
      }),
    stop: () => {
      aggregation.stop();
      index.stop();
      for (const r of [roles, roleBindings, clusterRoles, clusterRoleBindings]) r.cacher.stop();
    },
  };
}
