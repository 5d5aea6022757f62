/**
 * What every authenticated user may do whatever else is configured: ask who they are. Upstream grants this through
 * RBAC's `system:basic-user` ClusterRole, bound to `system:authenticated` (create on
 * `selfsubjectreviews.authentication.k8s.io`, next to the access reviews this server does not serve). Until RBAC
 * exists here (issue 12) this authorizer stands in for that one rule, after the system:masters authorizer; it
 * allows nothing else and has no opinion on everything else. Anonymous users are not in `system:authenticated`,
 * so they may not, as upstream.
 */
import { GROUP_AUTHENTICATED } from '../authenticator/user.ts';
import { ALLOW, type Attributes, type AuthorizationResult, type Authorizer, NO_OPINION } from './interface.ts';

/** The groups SelfSubjectReview is served in (the protocol name kubectl uses, and this project's spelling). */
const GROUPS = new Set(['authentication.k8s.io', 'authentication.cluster.io']);

export class BasicUserAuthorizer implements Authorizer {
  authorize(a: Attributes): AuthorizationResult {
    if (!a.isResourceRequest || a.verb !== 'create' || a.resource !== 'selfsubjectreviews' || a.subresource !== '' || !GROUPS.has(a.apiGroup)) return NO_OPINION;
    return a.user.groups.includes(GROUP_AUTHENTICATED) ? ALLOW : NO_OPINION;
  }
}
