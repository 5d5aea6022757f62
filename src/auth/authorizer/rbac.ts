/**
 * The RBAC authorizer (upstream `plugin/pkg/auth/authorizer/rbac/rbac.go`): allows a request when some rule of a
 * role bound to the user covers it — ClusterRoleBindings everywhere, RoleBindings in their namespace — and has no
 * opinion otherwise, so later authorizers may still decide. It never denies. Reads come from an RbacSource kept in
 * memory from the watch caches, so a decision costs no I/O.
 */
import { aggregateErrors } from '../aggregate.ts';
import { ruleAllows } from '../../apis/rbac/v1/evaluation.ts';
import { type RbacSource, rulesFor, visitRulesFor } from '../../apis/rbac/v1/resolver.ts';
import type { UserInfo } from '../authenticator/user.ts';
import { type Attributes, type AuthorizationResult, type Authorizer, NO_OPINION } from './interface.ts';
import type { RuleResolver, RulesResult } from './rules.ts';

export class RBACAuthorizer implements Authorizer, RuleResolver {
  readonly #source: RbacSource;

  constructor(source: RbacSource) {
    this.#source = source;
  }

  authorize(a: Attributes): AuthorizationResult {
    let reason = '';
    const errors = visitRulesFor(this.#source, a.user, a.namespace, (source, rule) => {
      if (!ruleAllows(a, rule)) return true;
      reason = `RBAC: allowed by ${source()}`;
      return false;
    });
    if (reason) return { decision: 'Allow', reason };
    // Missing roles are no reason to deny: they are named so the user sees why the binding did not help.
    return errors.length ? { decision: 'NoOpinion', reason: `RBAC: ${aggregateErrors(errors).message}` } : NO_OPINION;
  }

  /**
   * The user's rules in `namespace` (cluster-wide ones first), as upstream's RulesFor splits them: a rule with
   * resources is a resource rule, one with non-resource URLs a non-resource rule. RBAC lists all it would allow, so
   * the answer is complete; roles that bindings name but do not exist are the error.
   */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = rulesFor(this.#source, user, namespace);
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const r of rules) {
      if (r.resources?.length) out.resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources, resourceNames: r.resourceNames ?? [] });
      if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
    if (errors.length) out.error = aggregateErrors(errors);
    return out;
  }
}
