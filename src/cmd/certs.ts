/**
 * Certificates for serving HTTPS and for the admin client, in the manner of k3s: without `--tls-cert-file`
 * the server creates, once, a CA, a serving certificate and an admin client certificate under
 * `<data-dir>/pki/`, reuses them on later starts, and re-issues only what no longer fits (a serving
 * certificate that does not cover the current host names, a certificate close to expiry, a damaged file).
 */
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { log } from '../util/log.ts';
import { importSigningKey, issueCertificate, keyMatchesCertificate, parseCertificates } from './x509gen.ts';
import type { CertSpec, SigningKey } from './x509gen.ts';

export const CA_COMMON_NAME = 'core-apiserver-ca';
/** Upstream's bootstrap identities are `system:bootstrap:<token-id>` in `system:bootstrappers`; this one is a certificate. */
export const BOOTSTRAP_USER = 'system:bootstrap:corelet';
export const BOOTSTRAP_GROUP = 'system:bootstrappers';
const CA_DAYS = 3650;
const LEAF_DAYS = 365;
/** Re-issue a certificate when less than this remains, so that a restart renews it before it lapses. */
const RENEW_BEFORE_MS = 30 * 86_400_000;

/** A certificate problem worded for the operator (bad files given on the command line, unusable pki/). */
export class CertError extends Error {
  override name = 'CertError';
}

export interface PkiPaths {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  adminCert: string;
  adminKey: string;
  /** The node TLS bootstrap credential (CN=system:bootstrap:corelet, O=system:bootstrappers). */
  bootstrapCert: string;
  bootstrapKey: string;
}

/** The server's PKI. Client certificates are verified against `caCertPem`. */
export interface Pki {
  caCertPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  adminCertPem: string;
  adminKeyPem: string;
  caKeyPem: string;
  bootstrapCertPem: string;
  bootstrapKeyPem: string;
  paths: PkiPaths;
  /** What this call (re)issued: any of 'ca', 'serving', 'admin'; empty when everything was reused. */
  issued: string[];
}

/** The names every serving certificate covers, plus the given hosts; unspecified addresses are dropped. */
export function servingHosts(hosts: readonly string[]): string[] {
  const all = ['localhost', '127.0.0.1', '::1', hostname().toLowerCase(), ...hosts.map((h) => h.trim())];
  return [...new Set(all.filter((h) => h !== '' && h !== '0.0.0.0' && h !== '::'))];
}

/**
 * Makes sure `<dataDir>/pki/` holds a CA, a serving certificate for localhost, 127.0.0.1, ::1, the machine's
 * host name and `opts.hosts` (e.g. the bind address), and an admin client certificate (CN=admin,
 * O=system:masters). Existing files are reused when still valid. Keys are written with mode 0600, dirs 0700.
 */
export async function ensurePki(dataDir: string, opts: { hosts: string[] }): Promise<Pki> {
  const dir = join(dataDir, 'pki');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const paths: PkiPaths = {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    serverCert: join(dir, 'apiserver.crt'),
    serverKey: join(dir, 'apiserver.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    bootstrapCert: join(dir, 'bootstrap.crt'),
    bootstrapKey: join(dir, 'bootstrap.key'),
  };
  const issued: string[] = [];
  const hosts = servingHosts(opts.hosts);

  let ca = await loadPair(paths.caCert, paths.caKey, (cert) => (cert.ca ? '' : 'it is not a CA'));
  if (!ca) {
    const made = await issueCertificate({ subject: [{ CN: [CA_COMMON_NAME] }], validDays: CA_DAYS, ca: true });
    ca = { certPem: made.certPem, key: made.key, cert: new X509Certificate(made.certPem) };
    writePair(paths.caCert, paths.caKey, made.certPem, made.key.pem);
    issued.push('ca');
  }
  const issuer = { certPem: ca.certPem, key: ca.key };
  const caCert = ca.cert;
  const signedByCa = (cert: X509Certificate) => (cert.checkIssued(caCert) && cert.verify(caCert.publicKey) ? '' : 'it is not signed by the current CA');

  const leaves: Array<{ what: string; certPath: string; keyPath: string; spec: CertSpec; check(c: X509Certificate): string }> = [
    {
      what: 'serving', certPath: paths.serverCert, keyPath: paths.serverKey,
      spec: { subject: [{ CN: ['core-apiserver'] }], validDays: LEAF_DAYS, serverAuth: true, hosts },
      check: (c) => signedByCa(c) || uncovered(c, hosts),
    },
    {
      what: 'admin', certPath: paths.adminCert, keyPath: paths.adminKey,
      spec: { subject: [{ O: ['system:masters'] }, { CN: ['admin'] }], validDays: LEAF_DAYS, clientAuth: true },
      check: (c) => signedByCa(c) || (/^O=system:masters\nCN=admin$/.test(c.subject) ? '' : `its subject is ${JSON.stringify(c.subject)}`),
    },
    {
      what: 'bootstrap', certPath: paths.bootstrapCert, keyPath: paths.bootstrapKey,
      spec: { subject: [{ O: [BOOTSTRAP_GROUP] }, { CN: [BOOTSTRAP_USER] }], validDays: LEAF_DAYS, clientAuth: true },
      check: (c) => signedByCa(c) || (c.subject === `O=${BOOTSTRAP_GROUP}\nCN=${BOOTSTRAP_USER}` ? '' : `its subject is ${JSON.stringify(c.subject)}`),
    },
  ];
  const pems: Record<string, { certPem: string; keyPem: string }> = {};
  for (const leaf of leaves) {
    const existing = issued.includes('ca') ? undefined : await loadPair(leaf.certPath, leaf.keyPath, leaf.check);
    if (existing) {
      pems[leaf.what] = { certPem: existing.certPem, keyPem: existing.key.pem };
      continue;
    }
    const made = await issueCertificate(leaf.spec, issuer);
    writePair(leaf.certPath, leaf.keyPath, made.certPem, made.key.pem);
    pems[leaf.what] = { certPem: made.certPem, keyPem: made.key.pem };
    issued.push(leaf.what);
  }
  if (issued.length > 0) log.info('Generated certificates', { dir, issued: issued.join(','), hosts: hosts.join(',') });
  return {
    caCertPem: ca.certPem,
    serverCertPem: pems.serving!.certPem,
    serverKeyPem: pems.serving!.keyPem,
    adminCertPem: pems.admin!.certPem,
    adminKeyPem: pems.admin!.keyPem,
    caKeyPem: ca.key.pem,
    bootstrapCertPem: pems.bootstrap!.certPem,
    bootstrapKeyPem: pems.bootstrap!.keyPem,
    paths,
    issued,
  };
}

/** Why `cert` does not serve every host ('' when it does). */
function uncovered(cert: X509Certificate, hosts: string[]): string {
  const missing = hosts.filter((h) => (isIP(h) ? cert.checkIP(h) === undefined : cert.checkHost(h, { subject: 'never' }) === undefined));
  return missing.length === 0 ? '' : `it does not cover ${missing.join(', ')}`;
}

/**
 * Reads a certificate and its key from pki/. Returns undefined (after logging why) when either is missing,
 * damaged, mismatched, expiring or fails `check`, so the caller issues a new one.
 */
async function loadPair(certPath: string, keyPath: string, check: (cert: X509Certificate) => string) {
  let certPem: string;
  let keyPem: string;
  try {
    certPem = readFileSync(certPath, 'utf8');
    keyPem = readFileSync(keyPath, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CertError(`cannot read ${certPath} or ${keyPath}: ${(e as Error).message}`);
  }
  let reason: string;
  try {
    const cert = new X509Certificate(certPem);
    const key: SigningKey = await importSigningKey(keyPem);
    reason = !keyMatchesCertificate(cert, keyPem)
      ? 'its key does not match'
      : Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS
        ? `it expires at ${cert.validTo}`
        : check(cert);
    if (reason === '') return { certPem, key, cert };
  } catch (e) {
    reason = `it cannot be read: ${(e as Error).message}`;
  }
  log.warning('Replacing certificate', { path: certPath, reason });
  return undefined;
}

/** Writes key then certificate, each atomically (temp file + rename) so a crash never leaves half a file. */
function writePair(certPath: string, keyPath: string, certPem: string, keyPem: string): void {
  writeAtomic(keyPath, keyPem, 0o600);
  writeAtomic(certPath, certPem, 0o644);
}

/** Writes `data` to `path` via a temporary file and rename, with `mode` regardless of the umask. */
export function writeAtomic(path: string, data: string, mode: number): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

/** PEM contents of user-given TLS files, checked: `certPem` may carry the chain after the leaf. */
export interface TlsFiles {
  certPem: string;
  keyPem: string;
  clientCaPem?: string;
}

/**
 * Reads `--tls-cert-file`, `--tls-private-key-file` and optionally `--client-ca-file`, and checks that they
 * hold PEM certificates and a private key that matches the first certificate. Throws CertError naming the
 * flag and file.
 */
export function loadTlsFiles(certFile: string, keyFile: string, clientCaFile?: string): TlsFiles {
  const certPem = readFlagFile('--tls-cert-file', certFile);
  const keyPem = readFlagFile('--tls-private-key-file', keyFile);
  const [leaf] = certificatesOf('--tls-cert-file', certFile, certPem);
  try {
    if (!keyMatchesCertificate(leaf!, keyPem)) {
      throw new CertError(`--tls-private-key-file "${keyFile}" does not match the certificate in --tls-cert-file "${certFile}"`);
    }
  } catch (e) {
    if (e instanceof CertError) throw e;
    throw new CertError(`--tls-private-key-file "${keyFile}" does not contain a valid PEM private key: ${(e as Error).message}`);
  }
  if (!clientCaFile) return { certPem, keyPem };
  return { certPem, keyPem, clientCaPem: loadClientCaFile(clientCaFile) };
}

/** Reads `--client-ca-file` (a bundle of one or more PEM certificates); throws CertError naming the file. */
export function loadClientCaFile(clientCaFile: string): string {
  const pem = readFlagFile('--client-ca-file', clientCaFile);
  certificatesOf('--client-ca-file', clientCaFile, pem);
  return pem;
}

/** `--requestheader-client-ca-file`: the front-proxy CA bundle, checked as the client CA is. */
export function loadRequestHeaderCaFile(file: string): string {
  const pem = readFlagFile('--requestheader-client-ca-file', file);
  certificatesOf('--requestheader-client-ca-file', file, pem);
  return pem;
}

function readFlagFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    // node's text is "ENOENT: no such file or directory, open 'x'"; keep the human part.
    const why = /^[A-Z]+: ([^,]+)/.exec((e as Error).message)?.[1] ?? (e as Error).message;
    throw new CertError(`unable to read ${flag} "${file}": ${why}`);
  }
}

function certificatesOf(flag: string, file: string, pem: string): X509Certificate[] {
  let certs: X509Certificate[];
  try {
    certs = parseCertificates(pem);
  } catch (e) {
    throw new CertError(`${flag} "${file}" contains an invalid certificate: ${(e as Error).message}`);
  }
  if (certs.length === 0) throw new CertError(`${flag} "${file}" contains no PEM certificate`);
  return certs;
}
