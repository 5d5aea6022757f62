/**
 * authorization.k8s.io/v1 (the group kubectl hard-codes for `kubectl auth can-i`) and its `authorization.cluster.io`
 * spelling (reference README, decision 2): the access reviews. Field names and order as the Go structs.
 */
import type { KubeObject } from '../../meta/v1/types.ts';

export const GROUP = 'authorization.k8s.io';
export const CLUSTER_GROUP = 'authorization.cluster.io';
export const VERSION = 'v1';

export interface FieldSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface FieldSelectorAttributes {
  rawSelector?: string;
  requirements?: FieldSelectorRequirement[];
}

export interface LabelSelectorAttributes {
  rawSelector?: string;
  requirements?: LabelSelectorRequirement[];
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: FieldSelectorAttributes;
  labelSelector?: LabelSelectorAttributes;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface SubjectAccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

export type SelfSubjectAccessReviewSpec = Pick<SubjectAccessReviewSpec, 'resourceAttributes' | 'nonResourceAttributes'>;

export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview share this shape. */
export interface AccessReview extends KubeObject {
  spec?: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface SubjectRulesReviewStatus {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

export interface SelfSubjectRulesReview extends KubeObject {
  spec?: { namespace?: string };
  status?: SubjectRulesReviewStatus;
}

/** The four kinds: names, scope, and their definitions' local names. */
export const REVIEW_KINDS = {
  SubjectAccessReview: { resource: 'subjectaccessreviews', namespaced: false },
  SelfSubjectAccessReview: { resource: 'selfsubjectaccessreviews', namespaced: false },
  LocalSubjectAccessReview: { resource: 'localsubjectaccessreviews', namespaced: true },
  SelfSubjectRulesReview: { resource: 'selfsubjectrulesreviews', namespaced: false },
} as const;

export type ReviewKind = keyof typeof REVIEW_KINDS;
