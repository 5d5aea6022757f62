/**
 * The Node authorizer (upstream `plugin/pkg/auth/authorizer/node`): a node agent authenticates as
 * `system:node:<name>` in group `system:nodes` and may do what a node needs, and nothing more. Upstream subdivides
 * access to pods, secrets and volumes by the graph of what is bound to the node; this server has none of those, so
 * what is left is upstream's fallback: the static node rules (bootstrappolicy NodeRules) for the resources served
 * here. Which Node object a node may write is NodeRestriction's business (src/admission/plugin/noderestriction).
 */
import { ruleAllows } from '../../apis/rbac/v1/evaluation.ts';
import type { UserInfo } from '../authenticator/user.ts';
import { NODE_RULES, nodeIdentity } from '../../apis/core/v1/node-identity.ts';
import { goQuote } from '../../util/goquote.ts';
import { type Attributes, type AuthorizationResult, type Authorizer, ALLOW, NO_OPINION } from './interface.ts';
import type { RuleResolver, RulesResult } from './rules.ts';

export class NodeAuthorizer implements Authorizer, RuleResolver {
  authorize(a: Attributes): AuthorizationResult {
    const { isNode, nodeName } = nodeIdentity(a.user);
    if (!isNode) return NO_OPINION;
    if (!nodeName) return { decision: 'NoOpinion', reason: `unknown node for user ${goQuote(a.user.name)}` };
    return NODE_RULES.some((r) => ruleAllows(a, r)) ? ALLOW : NO_OPINION;
  }

  /** As upstream: a node's rules are not listed (they depend on the graph); everyone else gets nothing from here. */
  rulesFor(user: UserInfo): RulesResult {
    if (!nodeIdentity(user).isNode) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return { resourceRules: [], nonResourceRules: [], incomplete: false, error: new Error('node authorizer does not support user rule resolution') };
  }
}
