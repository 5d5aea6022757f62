/**
 * What the filters report to the metrics (kept as interfaces so a filter does not depend on the metrics registry):
 * upstream's filterlatency trackers, the self-defense terminations and the post-timeout activity.
 */
import type { RequestInfo } from '../request-info.ts';

export interface FilterLatency {
  filterLatency(filter: 'authentication' | 'impersonation' | 'authorization', seconds: number): void;
}

/** What the authentication filter records (upstream's recordAuthenticationMetrics). */
export interface AuthenticationRecorder {
  /**
   * One authentication: `success` (a user, anonymous included), `failure` (no credentials and no anonymous), `error`
   * (a credential was refused); how long the authenticator took; the user's name on success.
   */
  authenticated(result: 'success' | 'failure' | 'error', seconds: number, username: string | undefined): void;
}

export interface FilterOutcomes {
  /** A 429 from the max-in-flight limit. */
  tooManyRequests(method: string, contentType: string | undefined, info: RequestInfo, query: URLSearchParams): void;
  /** A request ended by the server in self-defense (504 when its deadline passed). */
  terminated(method: string, contentType: string | undefined, info: RequestInfo, code: number): void;
  /** A response cut off after it had started. */
  aborted(method: string, contentType: string | undefined, info: RequestInfo): void;
  /** What the handler did after its request was answered with 504. */
  postTimeout(source: 'timeout-handler' | 'rest-handler', status: 'ok' | 'error' | 'panic' | 'pending'): void;
}

/** Everything the handler chain reports. */
export type ChainMetrics = FilterLatency & FilterOutcomes;
