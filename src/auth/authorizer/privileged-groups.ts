/**
 * Upstream's authorizerfactory privileged-groups authorizer: members of the given groups may do everything. kube-
 * apiserver puts one for `system:masters` before every configured authorizer.
 */
import { ALLOW, type Attributes, type AuthorizationResult, type Authorizer, NO_OPINION } from './interface.ts';

export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly #groups: readonly string[];

  constructor(groups: readonly string[]) {
    this.#groups = [...groups];
  }

  authorize(a: Attributes): AuthorizationResult {
    for (const g of a.user.groups) if (this.#groups.includes(g)) return ALLOW;
    return NO_OPINION;
  }
}
