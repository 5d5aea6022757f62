/**
 * Who a request comes from, as upstream's `authentication/user` package describes it: what every authenticator
 * produces and every authorizer judges.
 */

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const GROUP_AUTHENTICATED = 'system:authenticated';
/** Upstream's user.Anonymous: who a request without credentials is, when anonymous requests are enabled. */
export const USER_ANONYMOUS = 'system:anonymous';
export const GROUP_UNAUTHENTICATED = 'system:unauthenticated';
/** Upstream's SystemPrivilegedGroup: its members may do everything. */
export const GROUP_MASTERS = 'system:masters';
/** Upstream's MonitoringGroup: the identity of scrapers and probes (trusted, like system:masters, to set trace context). */
export const GROUP_MONITORING = 'system:monitoring';
/**
 * Extra key carrying the credential's fingerprint (upstream `authentication.kubernetes.io/credential-id`, renamed
 * by the spec's naming rule: no client reads it, `kubectl auth whoami` only prints it).
 */
export const CREDENTIAL_ID_KEY = 'authentication.cluster.io/credential-id';

/**
 * Upstream's AuthenticatedGroupAdder, which kube-apiserver wraps around its authenticators: every authenticated user
 * is in `system:authenticated`, unless it is `system:anonymous` or already names either well-known group (a front
 * proxy or token file may say so on purpose). Changes `user` in place and returns it.
 */
export function addAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === USER_ANONYMOUS) return user;
  for (const g of user.groups) if (g === GROUP_AUTHENTICATED || g === GROUP_UNAUTHENTICATED) return user;
  user.groups.push(GROUP_AUTHENTICATED);
  return user;
}

/** Upstream's isAnonymousUser (authentication filter): `system:anonymous`, or any user in `system:unauthenticated`. */
export function isAnonymousUser(user: UserInfo): boolean {
  return user.name === USER_ANONYMOUS || user.groups.includes(GROUP_UNAUTHENTICATED);
}
