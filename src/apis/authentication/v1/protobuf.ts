/**
 * SelfSubjectReview's protobuf messages (field numbers of k8s.io/api authentication/v1 and v1beta1
 * generated.proto): kubectl 1.32 and later send `kubectl auth whoami`'s request in protobuf.
 */
import { ProtobufKind } from '../../../apimachinery/codec/protobuf.ts';

const PROTO = `
syntax = "proto2";
package k8s.io.api.authentication.v1;
message ExtraValue { repeated string items = 1; }
message UserInfo { optional string username = 1; optional string uid = 2; repeated string groups = 3; map<string, ExtraValue> extra = 4; }
message SelfSubjectReviewStatus { optional UserInfo userInfo = 1; }
message SelfSubjectReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}
`;

/** ExtraValue is a message around a list on the wire and the list itself in JSON. */
function adapt(obj: Record<string, unknown>): void {
  const extra = ((obj.status as Record<string, unknown> | undefined)?.userInfo as Record<string, unknown> | undefined)?.extra as Record<string, { items?: string[] }> | undefined;
  if (!extra) return;
  for (const k of Object.keys(extra)) (extra as Record<string, unknown>)[k] = extra[k]!.items ?? [];
}

/** v1beta1's messages are v1's, field for field. */
export const SELF_SUBJECT_REVIEW_PROTOBUF = new ProtobufKind(PROTO, 'k8s.io.api.authentication.v1.SelfSubjectReview', adapt);
