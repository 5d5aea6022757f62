/**
 * SelfSubjectReview (upstream `pkg/registry/authentication/selfsubjectreview`): a create-only, storage-less
 * resource whose answer is the requesting user as authentication found it — what `kubectl auth whoami` prints.
 * Served as authentication.k8s.io/v1 (kubectl 1.28+), v1beta1 (kubectl 1.27 asks for it first) and as
 * authentication.cluster.io/v1, this project's spelling of the group.
 */
import type { AdmissionUser } from '../../admission/interfaces.ts';
import { formatTime } from '../../apimachinery/codec/time.ts';
import { SELF_SUBJECT_REVIEW_PROTOBUF } from '../../apis/authentication/v1/protobuf.ts';
import { definitionNames, selfSubjectReviewDefinitions } from '../../apis/authentication/v1/schema.ts';
import { CLUSTER_GROUP, GROUP, KIND, RESOURCE, SINGULAR, type SelfSubjectReview, type UserInfo } from '../../apis/authentication/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { registerCreateOnly } from '../generic/create-only.ts';
import type { ResourceScope } from '../rest/scope.ts';

/** The group versions served. */
export const SELF_SUBJECT_REVIEW_VERSIONS: readonly { group: string; version: string }[] = [
  { group: GROUP, version: 'v1' },
  { group: GROUP, version: 'v1beta1' },
  { group: CLUSTER_GROUP, version: 'v1' },
];

/** The answer: only the user counts; whatever the request object held is not looked at, as upstream. */
export function selfSubjectReviewFor(user: AdmissionUser, groupVersion: string, now = Date.now()): SelfSubjectReview {
  const userInfo: UserInfo = { username: user.name };
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length) userInfo.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) userInfo.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return { kind: KIND, apiVersion: groupVersion, metadata: { creationTimestamp: formatTime(now) }, status: { userInfo } };
}

export function registerSelfSubjectReviews(): ResourceScope[] {
  return SELF_SUBJECT_REVIEW_VERSIONS.map(({ group, version }) =>
    registerCreateOnly<KubeObject>({
      group,
      version,
      kind: KIND,
      resource: RESOURCE,
      singular: SINGULAR,
      namespaced: false,
      defs: selfSubjectReviewDefinitions(group, version),
      definition: definitionNames(group, version).review,
      create: (_obj, user) => selfSubjectReviewFor(user, `${group}/${version}`) as unknown as KubeObject,
      protobuf: SELF_SUBJECT_REVIEW_PROTOBUF,
    }),
  );
}
