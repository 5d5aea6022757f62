/**
 * Rule resolution (upstream `authorization/authorizer.RuleResolver` and the union of them kube-apiserver builds beside
 * its authorizers): which rules a user holds in a namespace, for SelfSubjectRulesReview (`kubectl auth can-i --list`).
 * Not every authorizer can list what it would allow — a webhook cannot — so an answer may be incomplete, with an
 * error saying why; rules that are listed are held even then (authorization is additive).
 */
import { aggregateErrors } from '../aggregate.ts';
import type { UserInfo } from '../authenticator/user.ts';

export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface RulesResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** Some authorizer could not list its rules: more may be allowed than listed. */
  incomplete: boolean;
  error?: Error | undefined;
}

export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesResult;
}

/** Every resolver asked, in order: rules concatenated, incomplete if any is, errors aggregated (upstream's union). */
export class UnionRuleResolver implements RuleResolver {
  readonly #resolvers: readonly RuleResolver[];

  constructor(resolvers: readonly RuleResolver[]) {
    this.#resolvers = [...resolvers];
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const errors: Error[] = [];
    for (const r of this.#resolvers) {
      const got = r.rulesFor(user, namespace);
      out.resourceRules.push(...got.resourceRules);
      out.nonResourceRules.push(...got.nonResourceRules);
      if (got.incomplete) out.incomplete = true;
      if (got.error) errors.push(got.error);
    }
    if (errors.length) out.error = aggregateErrors(errors);
    return out;
  }
}

/**
 * The rule resolver of an authorizer that cannot list rules (upstream's webhook and Node authorizers): nothing
 * listed, incomplete, and `<kind> authorizer does not support user rule resolution` — kubectl prints it as a warning
 * above the list. For the webhook authorizers of --authorization-config / --authorization-mode=Webhook.
 */
export function unsupportedRuleResolver(kind: string): RuleResolver {
  const error = new Error(`${kind} authorizer does not support user rule resolution`);
  return { rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, error }) };
}

/** AlwaysAllow's rules: everything (upstream alwaysAllowAuthorizer.RulesFor). */
export const ALWAYS_ALLOW_RULES: RuleResolver = {
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/** AlwaysDeny's rules: none, and that is the complete answer. */
export const ALWAYS_DENY_RULES: RuleResolver = {
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};
