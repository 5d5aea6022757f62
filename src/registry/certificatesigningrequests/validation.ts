/**
 * CertificateSigningRequest validation (upstream `pkg/apis/certificates/validation`): the request must be a signed
 * PKCS#10 request, usages known and unique, signerName `domain/path`, conditions well formed; updates may not drop
 * Approved/Denied/Failed, change approval outside `/approval`, or touch the certificate outside `/status`. The
 * compatibility allowances for data stored by older servers are upstream's too (this server never stored any).
 */
import { X509Certificate } from 'node:crypto';
import type { CertificateSigningRequest, CSRCondition } from '../../apis/certificates/v1/types.ts';
import { LEGACY_UNKNOWN_SIGNER } from '../../apis/certificates/v1/types.ts';
import { FieldError, duplicate, forbidden, invalid, notSupported, required, tooLong } from '../../apimachinery/field.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../apimachinery/validation/content.ts';
import { validateCoreObjectMeta, validateCoreObjectMetaUpdate } from '../../apimachinery/validation/core.ts';
import { parseCSRField } from './request.ts';

export const VALID_USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
].sort();
const TRUE_ONLY = new Set(['Approved', 'Denied', 'Failed']);

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
}

/** Upstream ValidateCertificateSigningRequestSignerName. */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (!signerName) return [required(path, 'signerName must be provided')];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: FieldError[] = [];
  const [domain, rest] = segments as [string, string];
  if (domain.length > 253) errs.push(tooLong(path, 253));
  const labels = domain.split('.');
  for (const l of labels) {
    const e = isDNS1123Label(l);
    if (e.length) {
      for (const m of e) errs.push(invalid(path, domain, `validating label "${l}": ${m}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const l of rest.split('.')) {
    const e = isDNS1123Subdomain(l);
    if (e.length) {
      for (const m of e) errs.push(invalid(path, rest, `validating label "${l}": ${m}`));
      break;
    }
  }
  if (signerName.length > 253 + 253 + 63 + 1 + 1) errs.push(tooLong(path, 571));
  return errs;
}

/** An issued certificate must be one or more PEM CERTIFICATE blocks and nothing else (upstream validateCertificate). */
function certificateError(b64: string | undefined): string {
  if (!b64) return '';
  const text = Buffer.from(b64, 'base64').toString('latin1');
  const blocks = text.match(/-----BEGIN [^-]+-----[\s\S]*?-----END [^-]+-----/g) ?? [];
  if (!blocks.length) return 'must contain at least one CERTIFICATE PEM block';
  for (const b of blocks) {
    if (!b.startsWith('-----BEGIN CERTIFICATE-----')) return `only CERTIFICATE PEM blocks are allowed, found "${/BEGIN ([^-]+)-/.exec(b)![1]}"`;
    try {
      new X509Certificate(b);
    } catch (e) {
      return (e as Error).message;
    }
  }
  return '';
}

function validateConditions(conditions: CSRCondition[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditions.forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    if (!c.type) errs.push(required(`${p}.type`));
    const allowed = TRUE_ONLY.has(c.type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!c.status) errs.push(required(`${p}.status`));
    else if (!allowed.includes(c.status)) errs.push(notSupported(`${p}.status`, c.status, allowed));
    if (c.type === 'Approved') {
      approved = true;
      if (denied) errs.push(invalid(`${p}.type`, c.type, 'Approved and Denied conditions are mutually exclusive'));
    } else if (c.type === 'Denied') {
      denied = true;
      if (approved) errs.push(invalid(`${p}.type`, c.type, 'Approved and Denied conditions are mutually exclusive'));
    }
    if (seen.has(c.type)) errs.push(duplicate(`${p}.type`, c.type));
    seen.add(c.type);
  });
  return errs;
}

function validateCSR(csr: CertificateSigningRequest, old: CertificateSigningRequest | undefined): FieldError[] {
  const errs = validateCoreObjectMeta(csr.metadata, false, () => []);
  const spec = csr.spec ?? ({} as CertificateSigningRequest['spec']);
  try {
    parseCSRField(spec.request);
  } catch (e) {
    errs.push(invalid('spec.request', spec.request ?? '', (e as Error).message));
  }
  const usages = spec.usages ?? [];
  if (!usages.length) errs.push(required('spec.usages', 'usages must be provided'));
  usages.forEach((u, i) => {
    if (!VALID_USAGES.includes(u)) errs.push(notSupported(`spec.usages[${i}]`, u, VALID_USAGES));
  });
  usages.forEach((u, i) => {
    if (usages.indexOf(u) < i) errs.push(duplicate(`spec.usages[${i}]`, u));
  });
  if (spec.signerName === LEGACY_UNKNOWN_SIGNER && old?.spec.signerName !== LEGACY_UNKNOWN_SIGNER) {
    errs.push(invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', spec.signerName ?? ''));
  }
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null && spec.expirationSeconds < 600) {
    errs.push(invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr.status?.conditions ?? []));
  const unchangedCert = old !== undefined && (csr.status?.certificate ?? '') === (old.status?.certificate ?? '');
  if (!unchangedCert) {
    const err = certificateError(csr.status?.certificate);
    if (err) errs.push(invalid('status.certificate', '<certificate data>', err));
  }
  return errs;
}

export function validateCertificateSigningRequest(csr: CertificateSigningRequest): FieldError[] {
  return validateCSR(csr, undefined);
}

const ofType = (csr: CertificateSigningRequest, t: string) => (csr.status?.conditions ?? []).filter((c) => c.type === t);

function validateUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest, o: Options): FieldError[] {
  const errs = validateCSR(csr, old);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (ofType(csr, t).length < ofType(old, t).length) errs.push(forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!o.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = ofType(old, t);
      const after = ofType(csr, t);
      if (after.length > before.length) errs.push(forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (after.length === before.length && JSON.stringify(after) !== JSON.stringify(before)) {
        errs.push(forbidden('status.conditions', `updates may not modify a condition of type "${t}"`));
      }
    }
  }
  const cert = csr.status?.certificate ?? '';
  const oldCert = old.status?.certificate ?? '';
  if (cert !== oldCert) {
    if (!o.allowSettingCertificate) errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert) errs.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return [...errs, ...validateCoreObjectMetaUpdate(csr.metadata, old.metadata)];
}

export const validateCertificateSigningRequestUpdate = (csr: CertificateSigningRequest, old: CertificateSigningRequest) =>
  validateUpdate(csr, old, { allowSettingApprovalConditions: false, allowSettingCertificate: false });
export const validateCertificateSigningRequestStatusUpdate = (csr: CertificateSigningRequest, old: CertificateSigningRequest) =>
  validateUpdate(csr, old, { allowSettingApprovalConditions: false, allowSettingCertificate: true });
export const validateCertificateSigningRequestApprovalUpdate = (csr: CertificateSigningRequest, old: CertificateSigningRequest) =>
  validateUpdate(csr, old, { allowSettingApprovalConditions: true, allowSettingCertificate: false });
