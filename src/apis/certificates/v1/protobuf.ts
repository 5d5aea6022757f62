/**
 * CertificateSigningRequest as a protobuf message (field numbers of k8s.io/api certificates/v1 generated.proto):
 * kubectl 1.32 and later send `kubectl certificate approve|deny` bodies in protobuf.
 */
import { ProtobufKind } from '../../../apimachinery/codec/protobuf.ts';

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';

const PROTO = `
syntax = "proto2";
package k8s.io.api.certificates.v1;
message ExtraValue { repeated string items = 1; }
message CertificateSigningRequestSpec {
  optional bytes request = 1; optional string username = 2; optional string uid = 3; repeated string groups = 4;
  repeated string usages = 5; map<string, ExtraValue> extra = 6; optional string signerName = 7; optional int32 expirationSeconds = 8;
}
message CertificateSigningRequestCondition {
  optional string type = 1; optional string reason = 2; optional string message = 3; optional ${META}.Time lastUpdateTime = 4;
  optional ${META}.Time lastTransitionTime = 5; optional string status = 6;
}
message CertificateSigningRequestStatus { repeated CertificateSigningRequestCondition conditions = 1; optional bytes certificate = 2; }
message CertificateSigningRequest { optional ${META}.ObjectMeta metadata = 1; optional CertificateSigningRequestSpec spec = 2; optional CertificateSigningRequestStatus status = 3; }
`;

/** []byte fields are base64 strings in JSON; ExtraValue is a message around a list on the wire and the list in JSON. */
function adapt(obj: Record<string, unknown>): void {
  const spec = obj.spec as Record<string, unknown> | undefined;
  const status = obj.status as Record<string, unknown> | undefined;
  if (Buffer.isBuffer(spec?.request)) spec.request = spec.request.toString('base64');
  if (Buffer.isBuffer(status?.certificate)) status.certificate = status.certificate.toString('base64');
  const extra = spec?.extra as Record<string, { items?: string[] }> | undefined;
  if (extra) for (const k of Object.keys(extra)) (extra as Record<string, unknown>)[k] = extra[k]!.items ?? [];
}

export const CSR_PROTOBUF = new ProtobufKind(PROTO, 'k8s.io.api.certificates.v1.CertificateSigningRequest', adapt);
