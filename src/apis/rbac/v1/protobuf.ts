/**
 * Role, RoleBinding, ClusterRole and ClusterRoleBinding as protobuf messages (field numbers of k8s.io/api rbac/v1
 * generated.proto): kubectl 1.32 and later send `kubectl create role|rolebinding|clusterrole|clusterrolebinding`
 * and `kubectl auth reconcile` bodies in protobuf and do not retry with JSON after a 415.
 */
import { ProtobufKind } from '../../../apimachinery/codec/protobuf.ts';

const PROTO = `
syntax = "proto2";
package k8s.io.api.rbac.v1;
message PolicyRule {
  repeated string verbs = 1; repeated string apiGroups = 2; repeated string resources = 3;
  repeated string resourceNames = 4; repeated string nonResourceURLs = 5;
}
message Subject { optional string kind = 1; optional string apiGroup = 2; optional string name = 3; optional string namespace = 4; }
message RoleRef { optional string apiGroup = 1; optional string kind = 2; optional string name = 3; }
message AggregationRule { repeated .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1; }
message Role { optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1; repeated PolicyRule rules = 2; }
message ClusterRole {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1; repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3;
}
message RoleBinding { optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1; repeated Subject subjects = 2; optional RoleRef roleRef = 3; }
message ClusterRoleBinding { optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1; repeated Subject subjects = 2; optional RoleRef roleRef = 3; }
`;

const kind = (name: string) => new ProtobufKind(PROTO, `k8s.io.api.rbac.v1.${name}`);

export const ROLE_PROTOBUF = kind('Role');
export const ROLE_BINDING_PROTOBUF = kind('RoleBinding');
export const CLUSTER_ROLE_PROTOBUF = kind('ClusterRole');
export const CLUSTER_ROLE_BINDING_PROTOBUF = kind('ClusterRoleBinding');
