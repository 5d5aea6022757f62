/**
 * AuthenticationConfiguration (`--authentication-config`), as decoded from the file: the JWT issuers with their
 * claim rules and mappings, and the anonymous authenticator. Field names are the file's (`apiserver.config.cluster.io`
 * v1, the same shape as upstream's `apiserver.config.k8s.io` v1, v1beta1 and v1alpha1).
 *
 * An absent optional string is `undefined` and the empty string is `''`: the two differ only for `prefix`, where
 * upstream keeps a pointer so that "no prefix" (`""`) and "forgot the prefix" (absent) can be told apart.
 */

export interface AuthenticationConfiguration {
  jwt: JWTAuthenticator[];
  anonymous?: AnonymousAuthConfig;
}

export interface AnonymousAuthConfig {
  enabled: boolean;
  conditions: AnonymousAuthCondition[];
}

export interface AnonymousAuthCondition {
  path: string;
}

export interface JWTAuthenticator {
  issuer: Issuer;
  claimValidationRules: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules: UserValidationRule[];
}

/** The one policy there is; the empty string means the same for a single audience. */
export const AUDIENCE_MATCH_ANY = 'MatchAny';

export interface Issuer {
  url: string;
  discoveryURL: string;
  certificateAuthority: string;
  audiences: string[];
  audienceMatchPolicy: string;
  egressSelectorType: string;
}

export interface ClaimValidationRule {
  claim: string;
  requiredValue: string;
  expression: string;
  message: string;
}

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups: PrefixedClaimOrExpression;
  uid: ClaimOrExpression;
  extra: ExtraMapping[];
}

export interface PrefixedClaimOrExpression {
  claim: string;
  /** Absent (`undefined`) is not the same as `''`: see the file comment. */
  prefix?: string;
  expression: string;
}

export interface ClaimOrExpression {
  claim: string;
  expression: string;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
}

export interface UserValidationRule {
  expression: string;
  message: string;
}
