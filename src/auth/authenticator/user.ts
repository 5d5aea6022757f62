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
