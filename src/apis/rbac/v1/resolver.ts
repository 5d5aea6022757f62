/**
 * Which rules apply to a user where (upstream `pkg/registry/rbac/validation/rule.go`, DefaultRuleResolver): every
 * ClusterRoleBinding naming the user, then — in a namespace — every RoleBinding there, each contributing the rules
 * of the role it references. Reads go through RbacSource, which the server backs with its watch caches.
 */
import { goQuote } from '../../../util/goquote.ts';
import type { ClusterRole, PolicyRule, Role, RoleBinding, RoleRef, Subject } from './types.ts';
import { GROUP_KIND, SERVICE_ACCOUNT_KIND, USER_KIND } from './types.ts';

export interface RbacUser {
  readonly name: string;
  readonly groups: readonly string[];
}

/** Synchronous reads of the RBAC objects (no storage round trip per request). */
export interface RbacSource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  listRoleBindings(namespace: string): Iterable<RoleBinding>;
  listClusterRoleBindings(): Iterable<RoleBinding>;
}

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** Whether `subject` of a binding in `namespace` ('' for ClusterRoleBindings) names `user`. */
export function appliesTo(user: RbacUser, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case USER_KIND:
      return user.name === subject.name;
    case GROUP_KIND:
      return user.groups.includes(subject.name);
    case SERVICE_ACCOUNT_KIND: {
      const ns = subject.namespace || namespace;
      return ns !== '' && serviceAccountUsername(ns, subject.name) === user.name;
    }
    default:
      return false;
  }
}

/** upstream describeSubject: `User "alice"`, `ServiceAccount "name/namespace"`. */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === SERVICE_ACCOUNT_KIND) return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** Where a rule came from, in the words of upstream's allow reasons. */
export function describeBinding(binding: RoleBinding, subject: Subject, cluster: boolean): string {
  const ns = binding.metadata.namespace ?? '';
  const name = cluster ? binding.metadata.name ?? '' : `${binding.metadata.name ?? ''}/${ns}`;
  return `${cluster ? 'ClusterRoleBinding' : 'RoleBinding'} ${goQuote(name)} of ${binding.roleRef.kind} ${goQuote(binding.roleRef.name)} to ${describeSubject(subject, cluster ? '' : ns)}`;
}

export class RoleRefError extends Error {}

/** The rules `ref` grants in `namespace`; a missing role is an error (upstream's NotFound text). */
export function roleReferenceRules(source: RbacSource, ref: RoleRef, namespace: string): PolicyRule[] {
  if (ref.kind === 'Role') {
    const role = source.getRole(namespace, ref.name);
    if (!role) throw new RoleRefError(`role.rbac.authorization.k8s.io ${goQuote(ref.name)} not found`);
    return role.rules ?? [];
  }
  if (ref.kind === 'ClusterRole') {
    const role = source.getClusterRole(ref.name);
    if (!role) throw new RoleRefError(`clusterrole.rbac.authorization.k8s.io ${goQuote(ref.name)} not found`);
    return role.rules ?? [];
  }
  throw new RoleRefError(`unsupported role reference kind: ${goQuote(ref.kind)}`);
}

/** Called per applicable rule with a description of its source; return false to stop. */
export type RuleVisitor = (source: () => string, rule: PolicyRule) => boolean;

/**
 * Visits the user's rules in `namespace` ('' = only the cluster-wide ones); errors (missing roles) are collected,
 * not fatal, as upstream. Returns the errors seen, or stops early when the visitor says so.
 */
export function visitRulesFor(source: RbacSource, user: RbacUser, namespace: string, visit: RuleVisitor): Error[] {
  const errors: Error[] = [];
  const walk = (bindings: Iterable<RoleBinding>, ns: string, cluster: boolean): boolean => {
    for (const b of bindings) {
      const subject = (b.subjects ?? []).find((s) => appliesTo(user, s, ns));
      if (!subject) continue;
      let rules: PolicyRule[];
      try {
        rules = roleReferenceRules(source, b.roleRef, ns);
      } catch (e) {
        errors.push(e as Error);
        continue;
      }
      const describe = () => describeBinding(b, subject, cluster);
      for (const r of rules) if (!visit(describe, r)) return false;
    }
    return true;
  };
  if (walk(source.listClusterRoleBindings(), '', true) && namespace) walk(source.listRoleBindings(namespace), namespace, false);
  return errors;
}

/** Every rule the user holds in `namespace`, and the errors met resolving them. */
export function rulesFor(source: RbacSource, user: RbacUser, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
  const rules: PolicyRule[] = [];
  const errors = visitRulesFor(source, user, namespace, (_, r) => (rules.push(r), true));
  return { rules, errors };
}
