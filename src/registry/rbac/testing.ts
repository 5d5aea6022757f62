/** An in-memory RbacSource for unit tests of the authorizer, escalation and aggregation. */
import type { RbacSource } from '../../apis/rbac/v1/resolver.ts';
import type { ClusterRole, PolicyRule, Role, RoleBinding, Subject } from '../../apis/rbac/v1/types.ts';
import { GROUP } from '../../apis/rbac/v1/types.ts';

export class FakeRbacSource implements RbacSource {
  roles: Role[] = [];
  clusterRoles: ClusterRole[] = [];
  roleBindings: RoleBinding[] = [];
  clusterRoleBindings: RoleBinding[] = [];

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
  }
  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.find((r) => r.metadata.name === name);
  }
  listRoleBindings(namespace: string): Iterable<RoleBinding> {
    return this.roleBindings.filter((b) => b.metadata.namespace === namespace);
  }
  listClusterRoleBindings(): Iterable<RoleBinding> {
    return this.clusterRoleBindings;
  }

  role(namespace: string, name: string, rules: PolicyRule[]): this {
    this.roles.push({ metadata: { namespace, name }, rules });
    return this;
  }
  clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>): this {
    this.clusterRoles.push({ metadata: { name, ...(labels ? { labels } : {}) }, rules });
    return this;
  }
  bind(namespace: string, name: string, kind: 'Role' | 'ClusterRole', role: string, subjects: Subject[]): this {
    const b: RoleBinding = { metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: GROUP, kind, name: role }, subjects };
    (namespace ? this.roleBindings : this.clusterRoleBindings).push(b);
    return this;
  }
}

export const user = (name: string): Subject => ({ kind: 'User', apiGroup: GROUP, name });
export const group = (name: string): Subject => ({ kind: 'Group', apiGroup: GROUP, name });
export const serviceAccount = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });
