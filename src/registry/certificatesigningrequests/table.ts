/**
 * The Table of CertificateSigningRequests (upstream `printers.go` printCertificateSigningRequest; the columns carry the fields' docs, as upstream's): Name, Age,
 * SignerName, Requestor, RequestedDuration, Condition (`Pending`, `Approved`, `Denied`, then `,Failed` and `,Issued`).
 */
import { CONDITIONS_DOC, EXPIRATION_SECONDS_DOC, REQUEST_DOC, SIGNER_NAME_DOC } from '../../apis/certificates/v1/schema.ts';
import type { CertificateSigningRequest } from '../../apis/certificates/v1/types.ts';
import type { TableColumnDefinition } from '../../apis/meta/v1/types.ts';
import { humanDuration } from '../../apimachinery/duration-human.ts';
import type { TableConvertor } from '../rest/table.ts';

const col = (name: string, description: string, format = ''): TableColumnDefinition => ({ name, type: 'string', format, description, priority: 0 });

export const CSR_COLUMNS: TableColumnDefinition[] = [
  col('Name', 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.', 'name'),
  col('Age', 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.'),
  col('SignerName', SIGNER_NAME_DOC),
  col('Requestor', REQUEST_DOC),
  col('RequestedDuration', EXPIRATION_SECONDS_DOC),
  col('Condition', CONDITIONS_DOC),
];

/** Upstream extractCSRStatus. */
export function csrCondition(csr: CertificateSigningRequest): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of csr.status?.conditions ?? []) {
    if (c.type === 'Approved') approved = true;
    else if (c.type === 'Denied') denied = true;
    else if (c.type === 'Failed') failed = true;
  }
  let status = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) status += ',Failed';
  if (csr.status?.certificate) status += ',Issued';
  return status;
}

function age(time: string | null | undefined, nowMs: number): string {
  const t = time ? Date.parse(time) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(nowMs - t);
}

export function csrCells(csr: CertificateSigningRequest, nowMs: number): unknown[] {
  const secs = csr.spec?.expirationSeconds;
  return [
    csr.metadata.name ?? '',
    age(csr.metadata.creationTimestamp, nowMs),
    csr.spec?.signerName ?? '',
    csr.spec?.username ?? '',
    secs === undefined || secs === null ? '<none>' : humanDuration(secs * 1000),
    csrCondition(csr),
  ];
}

export const CSR_TABLE: TableConvertor<CertificateSigningRequest> = { columns: CSR_COLUMNS, cells: csrCells };
