/**
 * Reading a CSR's `spec.request` (upstream `certificates.ParseCSR` and `x509.CertificateRequest.CheckSignature`): a
 * "CERTIFICATE REQUEST" PEM block holding a PKCS#10 request whose signature verifies with its own public key. Done
 * synchronously (node's crypto.verify over the DER's signed part), since validation is synchronous.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPublicKey, verify as verifySignature } from 'node:crypto';

export interface ParsedCSR {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The request's public key (SPKI, DER). */
  spki: Buffer;
}

const SAN_OID = '2.5.29.17';
const PEM_TYPE = 'PEM block type must be CERTIFICATE REQUEST';

/** The first PEM block of `text` (Go's pem.Decode): its type and body, or undefined. */
function firstPemBlock(text: string): { type: string; der: Buffer } | undefined {
  const m = /-----BEGIN ([^-\n]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  const body = m[2]!.split(/\r?\n/).filter((l) => !l.includes(':')).join('');
  return { type: m[1]!, der: Buffer.from(body, 'base64') };
}

/** Offset and length of the DER element at `at`: [headerEnd, end]. */
function derElement(der: Buffer, at: number): [number, number] {
  if (at + 2 > der.length) throw new Error('x509: malformed certificate request');
  let len = der[at + 1]!;
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n < 1 || n > 4 || p + n > der.length) throw new Error('x509: malformed certificate request');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[p + i]!;
    p += n;
  }
  if (p + len > der.length) throw new Error('x509: malformed certificate request');
  return [p, p + len];
}

/** Verifies the PKCS#10 signature: the DER of certificationRequestInfo signed with the request's own key. */
function checkSignature(der: Buffer, csr: x509.Pkcs10CertificateRequest, spki: Buffer): void {
  const [bodyStart] = derElement(der, 0);
  const [, infoEnd] = derElement(der, bodyStart);
  const tbs = der.subarray(bodyStart, infoEnd);
  const alg = csr.signatureAlgorithm as { name: string; hash?: { name: string } };
  const hash = (alg.hash?.name ?? 'SHA-256').replace('-', '').toLowerCase();
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const sig = Buffer.from(csr.signature);
  const ok = alg.name === 'Ed25519' ? verifySignature(null, tbs, key, sig) : verifySignature(hash, tbs, key, sig);
  if (!ok) throw new Error(alg.name === 'ECDSA' ? 'x509: ECDSA verification failure' : 'crypto/rsa: verification error');
}

/** Parses and checks a request given as its PEM bytes; throws with upstream's text. */
export function parseCSR(pem: Buffer | string): ParsedCSR {
  const block = firstPemBlock(typeof pem === 'string' ? pem : pem.toString('latin1'));
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error(PEM_TYPE);
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(block.der);
  } catch (e) {
    throw new Error(`asn1: structure error: ${(e as Error).message}`);
  }
  const spki = Buffer.from(csr.publicKey.rawData);
  checkSignature(block.der, csr, spki);
  const name = csr.subjectName;
  const out: ParsedCSR = {
    commonName: name.getField('CN')[0] ?? '',
    organizations: name.getField('O'),
    dnsNames: [],
    ipAddresses: [],
    emailAddresses: [],
    uris: [],
    spki,
  };
  const ext = csr.getExtension(SAN_OID);
  const san = ext ? (ext instanceof x509.SubjectAlternativeNameExtension ? ext : new x509.SubjectAlternativeNameExtension(ext.rawData)) : undefined;
  for (const n of san?.names.toJSON() ?? []) {
    if (n.type === 'dns') out.dnsNames.push(n.value);
    else if (n.type === 'ip') out.ipAddresses.push(n.value);
    else if (n.type === 'email') out.emailAddresses.push(n.value);
    else if (n.type === 'url') out.uris.push(n.value);
  }
  return out;
}

/** `spec.request` as the API carries it (base64 of the PEM). */
export function parseCSRField(request: string | undefined): ParsedCSR {
  return parseCSR(Buffer.from(request ?? '', 'base64'));
}
