/**
 * The authorizer contract (upstream `authorization/authorizer`): may this user do this to this? Attributes are what
 * the request info filter derived from the URL, plus the authenticated user.
 */
import type { UserInfo } from '../authenticator/user.ts';

/** Upstream's AttributesRecord, as plain fields. */
export interface Attributes {
  readonly user: UserInfo;
  /** Kubernetes verb for resource requests (`get`, `list`, `create`, ...); the lower-case HTTP method otherwise. */
  readonly verb: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** The URL path; what non-resource requests are judged by. */
  readonly path: string;
  readonly isResourceRequest: boolean;
}

/** Allow and Deny are final; NoOpinion lets the next authorizer decide (none left: the request is forbidden). */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Why, for the user: appended to the 403 message. */
  readonly reason: string;
  /** The authorizer could not decide (a webhook down): without an Allow, upstream answers 500, not 403. */
  readonly error?: Error | undefined;
}

export interface Authorizer {
  /**
   * Judges `a`. An authorizer that needs no I/O for the answer returns it directly rather than as a promise, as
   * authenticators do (see Authenticator); callers accept both.
   */
  authorize(a: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** Shared answers of the authorizers that give no reason. */
export const ALLOW: AuthorizationResult = Object.freeze({ decision: 'Allow', reason: '' });
export const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'NoOpinion', reason: '' });
