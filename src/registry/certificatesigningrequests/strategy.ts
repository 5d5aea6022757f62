/**
 * The CertificateSigningRequest strategies (upstream `pkg/registry/certificates/certificates/strategy.go`):
 * cluster-scoped; on create the requester (username, uid, groups, extra) is taken from the authenticated user, never
 * from the body, and status starts empty; the main resource never changes spec or status on update; `/status`
 * changes status (the signer's certificate and Failed condition); `/approval` changes only the conditions.
 * Condition timestamps the client left out are filled in, as upstream's populateConditionTimestamps.
 */
import type { AdmissionUser } from '../../admission/interfaces.ts';
import type { CertificateSigningRequest, CSRCondition } from '../../apis/certificates/v1/types.ts';
import { formatTime } from '../../apimachinery/codec/time.ts';
import type { Strategy } from '../rest/strategy.ts';
import {
  validateCertificateSigningRequest,
  validateCertificateSigningRequestApprovalUpdate,
  validateCertificateSigningRequestStatusUpdate,
  validateCertificateSigningRequestUpdate,
} from './validation.ts';

function populateConditionTimestamps(next: CertificateSigningRequest, old: CertificateSigningRequest | undefined): void {
  const now = formatTime(Date.now());
  for (const c of next.status?.conditions ?? []) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const before = old?.status?.conditions?.find((o: CSRCondition) => o.type === c.type);
      c.lastTransitionTime = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : now;
    }
  }
}

export const csrStrategy: Strategy<CertificateSigningRequest> = {
  namespaceScoped: false,
  prepareForCreate(obj: CertificateSigningRequest, user?: AdmissionUser): void {
    const spec = (obj.spec ??= {} as CertificateSigningRequest['spec']);
    delete spec.username;
    delete spec.uid;
    delete spec.groups;
    delete spec.extra;
    if (user) {
      spec.username = user.name;
      if (user.uid) spec.uid = user.uid;
      if (user.groups.length) spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length) spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
    }
    obj.status = {};
  },
  validate: validateCertificateSigningRequest,
  allowCreateOnUpdate: false,
  prepareForUpdate(obj, old): void {
    obj.spec = structuredClone(old.spec);
    obj.status = structuredClone(old.status ?? {});
  },
  validateUpdate: validateCertificateSigningRequestUpdate,
  allowUnconditionalUpdate: true,
};

export const csrStatusStrategy: Strategy<CertificateSigningRequest> = {
  ...csrStrategy,
  prepareForUpdate(obj, old): void {
    obj.spec = structuredClone(old.spec);
    obj.status ??= {};
    populateConditionTimestamps(obj, old);
  },
  validateUpdate: validateCertificateSigningRequestStatusUpdate,
};

export const csrApprovalStrategy: Strategy<CertificateSigningRequest> = {
  ...csrStrategy,
  prepareForUpdate(obj, old): void {
    const conditions = obj.status?.conditions;
    obj.spec = structuredClone(old.spec);
    obj.status = structuredClone(old.status ?? {});
    if (conditions) obj.status.conditions = conditions;
    else delete obj.status.conditions;
    populateConditionTimestamps(obj, old);
  },
  validateUpdate: validateCertificateSigningRequestApprovalUpdate,
};
