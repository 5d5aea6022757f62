/**
 * AuthorizationConfiguration (`--authorization-config`), as decoded from the file and defaulted: the ordered
 * authorizers and, for webhooks, how to reach them and what to do when they fail. Field names are the file's
 * (`apiserver.config.cluster.io` v1, the shape of upstream's `apiserver.config.k8s.io` v1, v1beta1 and v1alpha1).
 * Durations are milliseconds.
 */

export interface AuthorizationConfiguration {
  authorizers: AuthorizerConfiguration[];
}

export const TYPE_WEBHOOK = 'Webhook';
export const TYPE_RBAC = 'RBAC';
export const TYPE_ALWAYS_ALLOW = 'AlwaysAllow';
export const TYPE_ALWAYS_DENY = 'AlwaysDeny';
/**
 * The types this server builds. Upstream's kube-apiserver also knows Node and ABAC; neither has a source here
 * (no nodes, no policy file), so they are refused as unknown rather than accepted and left out.
 */
export const KNOWN_TYPES = [TYPE_ALWAYS_ALLOW, TYPE_ALWAYS_DENY, TYPE_RBAC, TYPE_WEBHOOK] as const;
/** Only webhooks may appear more than once (each is a different server). */
export const REPEATABLE_TYPES = [TYPE_WEBHOOK] as const;

export interface AuthorizerConfiguration {
  type: string;
  name: string;
  webhook?: WebhookConfiguration;
}

export const FAILURE_POLICY_NO_OPINION = 'NoOpinion';
export const FAILURE_POLICY_DENY = 'Deny';
export const CONNECTION_KUBECONFIG_FILE = 'KubeConfigFile';
export const CONNECTION_IN_CLUSTER = 'InClusterConfig';
/** The spec's renaming (kube → core) of `KubeConfigFile`, accepted as the same type. */
export const CONNECTION_CORE_CONFIG_FILE = 'CoreConfigFile';

export interface WebhookConfiguration {
  /** Defaulted to 5m when the file leaves it out (or gives 0). */
  authorizedTTLMs: number;
  /** Defaulted to true. */
  cacheAuthorizedRequests: boolean;
  /** Defaulted to 30s. */
  unauthorizedTTLMs: number;
  cacheUnauthorizedRequests: boolean;
  /** Required; 0 when absent. */
  timeoutMs: number;
  subjectAccessReviewVersion: string;
  matchConditionSubjectAccessReviewVersion: string;
  failurePolicy: string;
  connectionInfo: WebhookConnectionInfo;
  matchConditions: WebhookMatchCondition[];
}

export interface WebhookConnectionInfo {
  type: string;
  /** Upstream's `kubeConfigFile`; the spec's `coreConfigFile` spelling lands here too. Absent is `undefined`. */
  kubeConfigFile?: string;
  /** Both spellings were given (a validation error). */
  bothSpellings?: boolean;
  /** Which spelling the file used, so that errors name the field as written. */
  spelledAs?: 'kubeConfigFile' | 'coreConfigFile';
}

export interface WebhookMatchCondition {
  expression: string;
}

export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;
export const MAX_MATCH_CONDITIONS = 64;
