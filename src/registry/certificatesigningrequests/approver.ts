/**
 * What the approver decides about one CSR (upstream `pkg/controller/certificates/approver/sarapprove.go`): a node
 * client request (signer kube-apiserver-client-kubelet, IsKubeletClientCSR) is approved when its requester may
 * `create` `certificatesigningrequests/selfnodeclient` (renewing its own identity: the requester is the CN) or
 * `certificatesigningrequests/nodeclient` (a bootstrap identity asking for a node's), as a SubjectAccessReview would
 * answer. This server adds one rule upstream leaves to outside approvers: a kubelet-serving request is approved when
 * the node that asks is the node it names (requester `system:node:<name>` in `system:nodes`, CN the same name) and it
 * passes IsKubeletServingCSR; anything else waits for a person (`kubectl certificate approve`).
 */
import { nodeIdentity } from '../../apis/core/v1/node-identity.ts';
import { type CertificateSigningRequest, GROUP, CSR_RESOURCE, KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from '../../apis/certificates/v1/types.ts';
import { isKubeletClientCSR, isKubeletServingCSR } from './kubelet-csr.ts';
import { type ParsedCSR, parseCSRField } from './request.ts';

/** A SubjectAccessReview for the CSR's requester: may they `create` this subresource of certificatesigningrequests? */
export type RequesterAuthorize = (csr: CertificateSigningRequest, attrs: { group: string; resource: string; subresource: string; verb: string }) => boolean | Promise<boolean>;

export type ApprovalDecision =
  | { approve: true; reason: string; message: string }
  | { approve: false; why: string };

interface Recognizer {
  subresource: string;
  message: string;
  recognize(csr: CertificateSigningRequest, req: ParsedCSR): boolean;
}

const isNodeClientCert = (csr: CertificateSigningRequest, req: ParsedCSR) => csr.spec.signerName === KUBELET_CLIENT_SIGNER && isKubeletClientCSR(req, csr.spec.usages ?? []);

/** Upstream's order: self first, so a node renewing its own certificate is recorded as that. */
const RECOGNIZERS: Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    recognize: (csr, req) => isNodeClientCert(csr, req) && csr.spec.username === req.commonName,
  },
  { subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.', recognize: isNodeClientCert },
];

export const SERVING_APPROVAL_MESSAGE = 'Auto approving kubelet serving certificate: requested by the node it names.';

export function isApprovedOrDenied(csr: CertificateSigningRequest): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === 'Approved' || c.type === 'Denied');
}

export async function decideApproval(csr: CertificateSigningRequest, authorize: RequesterAuthorize): Promise<ApprovalDecision> {
  if (isApprovedOrDenied(csr)) return { approve: false, why: 'already approved or denied' };
  let req: ParsedCSR;
  try {
    req = parseCSRField(csr.spec.request);
  } catch (e) {
    return { approve: false, why: `unable to parse csr "${csr.metadata.name}": ${(e as Error).message}` };
  }
  if (csr.spec.signerName === KUBELET_SERVING_SIGNER) {
    const node = nodeIdentity({ name: csr.spec.username ?? '', groups: csr.spec.groups ?? [] });
    if (node.isNode && node.nodeName && req.commonName === csr.spec.username && isKubeletServingCSR(req, csr.spec.usages ?? [])) {
      return { approve: true, reason: 'AutoApproved', message: SERVING_APPROVAL_MESSAGE };
    }
    return { approve: false, why: 'a kubelet-serving request not made by the node it names' };
  }
  const tried: string[] = [];
  for (const r of RECOGNIZERS) {
    if (!r.recognize(csr, req)) continue;
    tried.push(r.subresource);
    if (await authorize(csr, { group: GROUP, resource: CSR_RESOURCE, subresource: r.subresource, verb: 'create' })) {
      return { approve: true, reason: 'AutoApproved', message: r.message };
    }
  }
  if (tried.length) return { approve: false, why: `recognized csr "${csr.metadata.name}" as [${tried.join(' ')}] but subject access review was not approved` };
  return { approve: false, why: 'not a request this approver recognizes' };
}
