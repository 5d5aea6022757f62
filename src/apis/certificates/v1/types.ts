/**
 * certificates.k8s.io/v1 CertificateSigningRequest (kubernetes/api `certificates/v1/types.go`), cluster-scoped:
 * fields named and ordered as the Go structs. `request` and `certificate` are []byte, base64 strings on the wire.
 */
import type { ObjectMeta } from '../../meta/v1/types.ts';

export const GROUP = 'certificates.k8s.io';
export const VERSION = 'v1';
export const GROUP_VERSION = `${GROUP}/${VERSION}`;
export const CSR_KIND = 'CertificateSigningRequest';
export const CSR_RESOURCE = 'certificatesigningrequests';

/** The built-in signers (upstream's well-known signer names). */
export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

export type ConditionType = 'Approved' | 'Denied' | 'Failed' | string;

export interface CSRCondition {
  type: ConditionType;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string | null;
  lastTransitionTime?: string | null;
}

export interface CSRSpec {
  request: string;
  signerName: string;
  expirationSeconds?: number;
  usages?: string[];
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface CSRStatus {
  conditions?: CSRCondition[];
  certificate?: string;
}

export interface CertificateSigningRequest {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: CSRSpec;
  status?: CSRStatus;
  [field: string]: unknown;
}
