/**
 * authentication.k8s.io SelfSubjectReview (v1, and v1beta1 which kubectl 1.27 asks for): what the server knows of the
 * user who asks. The group keeps the name kubectl hard-codes; `authentication.cluster.io` serves the same kind under
 * this project's naming (reference README, decision 2).
 */
import type { ObjectMeta } from '../../meta/v1/types.ts';

export const GROUP = 'authentication.k8s.io';
export const CLUSTER_GROUP = 'authentication.cluster.io';
export const KIND = 'SelfSubjectReview';
export const RESOURCE = 'selfsubjectreviews';
export const SINGULAR = 'selfsubjectreview';

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface SelfSubjectReview {
  kind: string;
  apiVersion: string;
  metadata: ObjectMeta;
  status?: { userInfo: UserInfo };
}
