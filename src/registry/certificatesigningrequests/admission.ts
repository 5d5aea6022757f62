/**
 * Upstream's CertificateApproval and CertificateSigning admission plugins (`plugin/pkg/admission/certificates`):
 * adding or changing an Approved/Denied condition needs `approve` on `signers` (certificates.k8s.io) named the
 * request's signerName or `<domain>/*`; setting `status.certificate` needs `sign` on the same. Always on, as upstream
 * enables them by default.
 */
import type { AdmissionUser, Attributes, Operation, ValidationInterface } from '../../admission/interfaces.ts';
import { type CertificateSigningRequest, CSR_RESOURCE, GROUP } from '../../apis/certificates/v1/types.ts';
import { newForbidden } from '../../apimachinery/errors.ts';

export type SignerAuthorize = (user: AdmissionUser, verb: 'approve' | 'sign', signerName: string) => boolean | Promise<boolean>;

const approvalConditions = (csr: CertificateSigningRequest | null) =>
  JSON.stringify((csr?.status?.conditions ?? []).filter((c) => c.type === 'Approved' || c.type === 'Denied'));

/** Upstream IsAuthorizedForSignerName: the exact name, then the domain wildcard. */
export async function isAuthorizedForSignerName(authorize: SignerAuthorize, user: AdmissionUser, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  if (await authorize(user, verb, signerName)) return true;
  const slash = signerName.indexOf('/');
  return slash > 0 && (await authorize(user, verb, `${signerName.slice(0, slash)}/*`));
}

export class CertificateSignerPlugin implements ValidationInterface {
  readonly #authorize: SignerAuthorize;

  constructor(authorize: SignerAuthorize) {
    this.#authorize = authorize;
  }

  handles(op: Operation): boolean {
    return op === 'UPDATE';
  }

  async validate(a: Attributes): Promise<void> {
    if (a.resource.group !== GROUP || a.resource.resource !== CSR_RESOURCE || !a.object || !a.oldObject) return;
    const csr = a.object as unknown as CertificateSigningRequest;
    const old = a.oldObject as unknown as CertificateSigningRequest;
    const signer = old.spec.signerName;
    const gr = { group: GROUP, resource: CSR_RESOURCE };
    const name = old.metadata.name ?? a.name;
    if (approvalConditions(csr) !== approvalConditions(old) && !(await isAuthorizedForSignerName(this.#authorize, a.userInfo, 'approve', signer))) {
      throw newForbidden(gr, name, `user not permitted to approve requests with signerName "${signer}"`);
    }
    if ((csr.status?.certificate ?? '') !== (old.status?.certificate ?? '') && !(await isAuthorizedForSignerName(this.#authorize, a.userInfo, 'sign', signer))) {
      throw newForbidden(gr, name, `user not permitted to sign requests with signerName "${signer}"`);
    }
  }
}
