/**
 * The RBAC objects in memory, from the four resources' watch caches: what the authorizer and escalation prevention
 * read (upstream's listers). RoleBindings are indexed by namespace, as a request only needs its own namespace's.
 */
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import type { RbacSource } from '../../apis/rbac/v1/resolver.ts';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../apis/rbac/v1/types.ts';
import { Informer } from '../generic/informer.ts';
import type { Registered } from '../generic/registration.ts';

export interface RbacResources {
  roles: Registered<Role>;
  roleBindings: Registered<RoleBinding>;
  clusterRoles: Registered<ClusterRole>;
  clusterRoleBindings: Registered<ClusterRoleBinding>;
}

function informer<T extends KubeObject>(r: Registered<T>): Informer<T> {
  return new Informer<T>(r.cacher, r.store.prefix(''), (v) => r.scope.codec.decode(v) as T);
}

export class RbacIndex implements RbacSource {
  readonly roles: Informer<Role>;
  readonly clusterRoles: Informer<ClusterRole>;
  readonly roleBindings: Informer<RoleBinding>;
  readonly clusterRoleBindings: Informer<ClusterRoleBinding>;
  readonly #r: RbacResources;
  readonly #bindingsByNamespace = new Map<string, Map<string, RoleBinding>>();

  constructor(r: RbacResources) {
    this.#r = r;
    this.roles = informer(r.roles);
    this.clusterRoles = informer(r.clusterRoles);
    this.roleBindings = informer(r.roleBindings);
    this.clusterRoleBindings = informer(r.clusterRoleBindings);
    this.roleBindings.onChange((b, deleted) => {
      const ns = b.metadata.namespace ?? '';
      let m = this.#bindingsByNamespace.get(ns);
      if (deleted) {
        m?.delete(b.metadata.name ?? '');
        if (m?.size === 0) this.#bindingsByNamespace.delete(ns);
        return;
      }
      if (!m) this.#bindingsByNamespace.set(ns, (m = new Map()));
      m.set(b.metadata.name ?? '', b);
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.roles.start(), this.clusterRoles.start(), this.roleBindings.start(), this.clusterRoleBindings.start()]);
  }

  stop(): void {
    for (const i of [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings]) i.stop();
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.get(this.#r.roles.store.key(namespace, name));
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(this.#r.clusterRoles.store.key('', name));
  }

  listRoleBindings(namespace: string): Iterable<RoleBinding> {
    return this.#bindingsByNamespace.get(namespace)?.values() ?? [];
  }

  listClusterRoleBindings(): Iterable<RoleBinding> {
    return this.clusterRoleBindings.values();
  }
}
