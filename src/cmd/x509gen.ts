/**
 * Issuing ECDSA P-256 / SHA-256 certificates with @peculiar/x509 on node's WebCrypto, and the PEM helpers the
 * PKI code needs. Checks on existing certificates use node's own X509Certificate.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, X509Certificate, createPrivateKey, createPublicKey, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';

// @peculiar/x509 is typed against the DOM's Crypto; node's webcrypto implements it.
x509.cryptoProvider.set(webcrypto as never);

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
/** Back-date notBefore so that a client whose clock is a little behind still accepts a fresh certificate. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A key pair usable for signing with WebCrypto, plus its PEM (PKCS#8) form for files. */
export interface SigningKey {
  keys: webcrypto.CryptoKeyPair;
  pem: string;
}

/** What one certificate should say. */
export interface CertSpec {
  /** Subject as ordered RDNs, e.g. [{ O: ['system:masters'] }, { CN: ['admin'] }]. */
  subject: Array<Record<string, string[]>>;
  validDays: number;
  ca?: boolean;
  serverAuth?: boolean;
  clientAuth?: boolean;
  /** DNS names and IP addresses for the subjectAltName extension. */
  hosts?: string[];
}

/** An issued certificate in PEM with its key. */
export interface IssuedCert {
  certPem: string;
  key: SigningKey;
}

/** Generates a fresh ECDSA P-256 key. */
export async function newSigningKey(): Promise<SigningKey> {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const pem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { keys, pem };
}

/** Imports a PEM private key written by `newSigningKey` (or any P-256 key) for signing; throws if it is not P-256. */
export async function importSigningKey(pem: string): Promise<SigningKey> {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('not an ECDSA P-256 key');
  }
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, EC_P256, true, ['sign']);
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const publicKey = await webcrypto.subtle.importKey('spki', spki, EC_P256, true, ['verify']);
  return { keys: { privateKey, publicKey }, pem };
}

/**
 * Issues a certificate for a fresh key. Without `issuer` it is self-signed (the CA); otherwise signed by the
 * issuer's key, with the authority key identifier of the issuer's certificate.
 */
export async function issueCertificate(spec: CertSpec, issuer?: { certPem: string; key: SigningKey }): Promise<IssuedCert> {
  const key = await newSigningKey();
  const now = Date.now();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(spec.ca ?? false, undefined, true),
    new x509.KeyUsagesExtension(
      spec.ca
        ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature
        : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(key.keys.publicKey),
  ];
  const usages = [
    ...(spec.serverAuth ? [x509.ExtendedKeyUsage.serverAuth] : []),
    ...(spec.clientAuth ? [x509.ExtendedKeyUsage.clientAuth] : []),
  ];
  if (usages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(usages));
  if (spec.hosts?.length) {
    const names = spec.hosts.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h }));
    extensions.push(new x509.SubjectAlternativeNameExtension(names));
  }
  let issuerName: x509.Name | undefined;
  if (issuer) {
    const issuerCert = new x509.X509Certificate(issuer.certPem);
    issuerName = issuerCert.subjectName;
    extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuerCert.publicKey));
  }
  const subject = new x509.Name(spec.subject);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject,
    issuer: issuerName ?? subject,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + spec.validDays * DAY_MS),
    signingAlgorithm: SIGNING,
    publicKey: key.keys.publicKey,
    signingKey: (issuer?.key ?? key).keys.privateKey,
    extensions,
  });
  return { certPem: cert.toString('pem') + '\n', key };
}

/** A positive, non-zero 128-bit serial number in hex (RFC 5280 allows up to 20 octets). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

/** Every `CERTIFICATE` block of a PEM bundle, parsed. Throws on a block that is not a valid certificate. */
export function parseCertificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

/** True when `certPem`'s public key is the public half of `keyPem`. */
export function keyMatchesCertificate(cert: X509Certificate, keyPem: string): boolean {
  const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
  const fromCert = cert.publicKey.export({ type: 'spki', format: 'der' });
  return Buffer.compare(fromKey, fromCert) === 0;
}

/** What a signer puts in a certificate for someone else's key (a CSR's). */
export interface SignSpec {
  subject: Array<Record<string, string[]>>;
  /** The requester's public key, SPKI DER. */
  spki: Buffer;
  notBefore: Date;
  notAfter: Date;
  /** CSR key usages (`digital signature`, `key encipherment`, `client auth`, `server auth`, …). */
  usages: readonly string[];
  dnsNames: readonly string[];
  ipAddresses: readonly string[];
}

const KEY_USAGE_FLAGS: Record<string, number> = {
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};
const EXT_KEY_USAGES: Record<string, string> = {
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
};

/** Signs a certificate for `spec.spki` with the issuer's key (upstream's local signer: CA:false, the CSR's usages). */
export async function signCertificate(spec: SignSpec, issuer: { certPem: string; key: SigningKey }): Promise<string> {
  const publicKey = new x509.PublicKey(spec.spki);
  const algorithm = publicKey.algorithm as { name: string; namedCurve?: string };
  const cryptoKey = await publicKey.export(
    algorithm.name === 'ECDSA' ? { name: 'ECDSA', namedCurve: algorithm.namedCurve ?? 'P-256' } : algorithm.name === 'Ed25519' ? { name: 'Ed25519' } : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    ['verify'],
  );
  const issuerCert = new x509.X509Certificate(issuer.certPem);
  let flags = 0;
  for (const u of spec.usages) flags |= KEY_USAGE_FLAGS[u] ?? 0;
  const ext = spec.usages.flatMap((u) => (EXT_KEY_USAGES[u] ? [EXT_KEY_USAGES[u]!] : []));
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    ...(flags ? [new x509.KeyUsagesExtension(flags, true)] : []),
    ...(ext.length ? [new x509.ExtendedKeyUsageExtension(ext)] : []),
    await x509.AuthorityKeyIdentifierExtension.create(issuerCert.publicKey),
  ];
  const names = [...spec.dnsNames.map((value) => ({ type: 'dns' as const, value })), ...spec.ipAddresses.map((value) => ({ type: 'ip' as const, value }))];
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: new x509.Name(spec.subject),
    issuer: issuerCert.subjectName,
    notBefore: spec.notBefore,
    notAfter: spec.notAfter,
    signingAlgorithm: SIGNING,
    publicKey: cryptoKey,
    signingKey: issuer.key.keys.privateKey,
    extensions,
  });
  return cert.toString('pem') + '\n';
}
