/**
 * The access reviews as protobuf messages (field numbers of k8s.io/api authorization/v1 generated.proto): kubectl
 * 1.32 and later send `kubectl auth can-i`'s SelfSubjectAccessReview and SelfSubjectRulesReview, and typed clients
 * their SubjectAccessReviews, in protobuf.
 */
import { ProtobufKind } from '../../../apimachinery/codec/protobuf.ts';
import type { ReviewKind } from './types.ts';

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';

const PROTO = `
syntax = "proto2";
package k8s.io.api.authorization.v1;
message ExtraValue { repeated string items = 1; }
message FieldSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message FieldSelectorAttributes { optional string rawSelector = 1; repeated FieldSelectorRequirement requirements = 2; }
message LabelSelectorAttributes { optional string rawSelector = 1; repeated ${META}.LabelSelectorRequirement requirements = 2; }
message ResourceAttributes {
  optional string namespace = 1; optional string verb = 2; optional string group = 3; optional string version = 4;
  optional string resource = 5; optional string subresource = 6; optional string name = 7;
  optional FieldSelectorAttributes fieldSelector = 8; optional LabelSelectorAttributes labelSelector = 9;
}
message NonResourceAttributes { optional string path = 1; optional string verb = 2; }
message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1; optional NonResourceAttributes nonResourceAttributes = 2;
  optional string user = 3; repeated string groups = 4; map<string, ExtraValue> extra = 5; optional string uid = 6;
}
message SelfSubjectAccessReviewSpec { optional ResourceAttributes resourceAttributes = 1; optional NonResourceAttributes nonResourceAttributes = 2; }
message SubjectAccessReviewStatus { optional bool allowed = 1; optional bool denied = 4; optional string reason = 2; optional string evaluationError = 3; }
message SubjectAccessReview { optional ${META}.ObjectMeta metadata = 1; optional SubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3; }
message LocalSubjectAccessReview { optional ${META}.ObjectMeta metadata = 1; optional SubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3; }
message SelfSubjectAccessReview { optional ${META}.ObjectMeta metadata = 1; optional SelfSubjectAccessReviewSpec spec = 2; optional SubjectAccessReviewStatus status = 3; }
message SelfSubjectRulesReviewSpec { optional string namespace = 1; }
message ResourceRule { repeated string verbs = 1; repeated string apiGroups = 2; repeated string resources = 3; repeated string resourceNames = 4; }
message NonResourceRule { repeated string verbs = 1; repeated string nonResourceURLs = 2; }
message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1; repeated NonResourceRule nonResourceRules = 2;
  optional bool incomplete = 3; optional string evaluationError = 4;
}
message SelfSubjectRulesReview { optional ${META}.ObjectMeta metadata = 1; optional SelfSubjectRulesReviewSpec spec = 2; optional SubjectRulesReviewStatus status = 3; }
`;

/** ExtraValue is a message around a list on the wire and the list itself in JSON. */
function adapt(obj: Record<string, unknown>): void {
  const extra = (obj.spec as Record<string, unknown> | undefined)?.extra as Record<string, { items?: string[] }> | undefined;
  if (!extra) return;
  for (const k of Object.keys(extra)) (extra as Record<string, unknown>)[k] = extra[k]!.items ?? [];
}

export const REVIEW_PROTOBUF: Record<ReviewKind, ProtobufKind> = {
  SubjectAccessReview: new ProtobufKind(PROTO, 'k8s.io.api.authorization.v1.SubjectAccessReview', adapt),
  LocalSubjectAccessReview: new ProtobufKind(PROTO, 'k8s.io.api.authorization.v1.LocalSubjectAccessReview', adapt),
  SelfSubjectAccessReview: new ProtobufKind(PROTO, 'k8s.io.api.authorization.v1.SelfSubjectAccessReview'),
  SelfSubjectRulesReview: new ProtobufKind(PROTO, 'k8s.io.api.authorization.v1.SelfSubjectRulesReview'),
};
