/**
 * Escalation prevention (upstream `pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased`
 * and `pkg/registry/rbac/escalation_check.go`), as a validating admission plugin on the four RBAC resources: a user
 * may write a Role or ClusterRole only with rules they hold (in that namespace, or cluster-wide), unless allowed
 * `escalate` on it; and may bind a role only when they hold its rules, unless allowed `bind` on it. Members of
 * system:masters are exempt, as upstream's EscalationAllowed.
 */
import type { AdmissionUser, Attributes, Operation, ValidationInterface } from '../../admission/interfaces.ts';
import { newForbidden } from '../../apimachinery/errors.ts';
import { compactRules, compactString, covers } from '../../apis/rbac/v1/evaluation.ts';
import { type RbacSource, roleReferenceRules, rulesFor } from '../../apis/rbac/v1/resolver.ts';
import type { ClusterRole, PolicyRule, RoleBinding } from '../../apis/rbac/v1/types.ts';
import { GROUP } from '../../apis/rbac/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { goQuote } from '../../util/goquote.ts';

/** Asks the server's authorizers whether `user` may `verb` the named RBAC `resource` in `namespace`. */
export type RbacAuthorize = (user: AdmissionUser, verb: 'escalate' | 'bind', resource: 'roles' | 'clusterroles', namespace: string, name: string) => boolean | Promise<boolean>;

/** Creating an aggregated ClusterRole grants whatever it will select: only those holding everything may. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export class RBACEscalationPlugin implements ValidationInterface {
  readonly #source: RbacSource;
  readonly #authorize: RbacAuthorize;
  readonly #privilegedGroups: readonly string[];

  constructor(opts: { source: RbacSource; authorize: RbacAuthorize; privilegedGroups: readonly string[] }) {
    this.#source = opts.source;
    this.#authorize = opts.authorize;
    this.#privilegedGroups = opts.privilegedGroups;
  }

  handles(op: Operation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  async validate(a: Attributes): Promise<void> {
    if (a.resource.group !== GROUP || !a.object) return;
    const resource = a.resource.resource;
    if (resource !== 'roles' && resource !== 'clusterroles' && resource !== 'rolebindings' && resource !== 'clusterrolebindings') return;
    if (a.userInfo.groups.some((g) => this.#privilegedGroups.includes(g))) return;
    if (a.oldObject && onlyGCFieldsChanged(a.object, a.oldObject)) return;
    const namespace = resource === 'roles' || resource === 'rolebindings' ? a.namespace : '';
    const name = a.object.metadata.name ?? a.name;
    const gr = { group: GROUP, resource };
    if (resource === 'roles' || resource === 'clusterroles') {
      if (await this.#authorize(a.userInfo, 'escalate', resource, namespace, name)) return;
      const role = a.object as ClusterRole;
      const rules = resource === 'clusterroles' && role.aggregationRule ? FULL_AUTHORITY : (role.rules ?? []);
      const err = this.#confirmNoEscalation(a.userInfo, namespace, rules);
      if (err) throw newForbidden(gr, name, err);
      return;
    }
    const ref = (a.object as RoleBinding).roleRef;
    if (await this.#authorize(a.userInfo, 'bind', ref.kind === 'Role' ? 'roles' : 'clusterroles', namespace, ref.name)) return;
    let rules: PolicyRule[];
    try {
      rules = roleReferenceRules(this.#source, ref, namespace);
    } catch (e) {
      throw newForbidden(gr, name, (e as Error).message);
    }
    const err = this.#confirmNoEscalation(a.userInfo, namespace, rules);
    if (err) throw newForbidden(gr, name, err);
  }

  /** upstream ConfirmNoEscalation: '' when the user holds every rule, else the message naming what is missing. */
  #confirmNoEscalation(user: AdmissionUser, namespace: string, rules: readonly PolicyRule[]): string {
    const held = rulesFor(this.#source, user, namespace);
    const { covered, missing } = covers(held.rules, rules);
    if (covered) return '';
    const lines = [...new Set(compactRules(missing).map(compactString))].sort();
    let msg = `user ${goQuote(user.name)} (groups=[${user.groups.map(goQuote).join(' ')}]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
    if (held.errors.length) msg += `; resolution errors: [${held.errors.map((e) => e.message).join(' ')}]`;
    return msg;
  }
}

/**
 * upstream IsOnlyMutatingGCFields: an update touching nothing but ownerReferences and finalizers (what the garbage
 * collector writes) grants nothing, so it is not checked.
 */
function onlyGCFieldsChanged(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, generation: _g, ...meta } = o.metadata;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
}
