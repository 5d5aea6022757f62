/**
 * The corelet's TLS bootstrap and serving certificate (kubelet's `pkg/kubelet/certificate` and `bootstrap`): with a
 * bootstrap kubeconfig and no usable `--kubeconfig`, the corelet makes a key, files a
 * `kubernetes.io/kube-apiserver-client-kubelet` CSR for `system:node:<name>` in `system:nodes`, waits for the
 * certificate, stores key and certificate in one PEM under `--cert-dir` (`corelet-client-<time>.pem`, and the link
 * `corelet-client-current.pem`, kubelet's `kubelet-client-*` names) and writes `--kubeconfig` pointing at it. With
 * `--rotate-server-certificates` the serving certificate comes the same way from a `kubernetes.io/kubelet-serving`
 * CSR (`corelet-server-*.pem`). A stored certificate is reused at the next start until 80 % of its lifetime has
 * passed (kubelet rotates between 70 and 90 %), so a restart files no new CSR.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate, createHash, createPrivateKey, createPublicKey, KeyObject, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { loadKubeconfig } from '../client/kubeconfig.ts';
import { RestClient, sleep } from '../client/rest.ts';
import type { Logger } from './runtime.ts';

x509.cryptoProvider.set(webcrypto as never);

export const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
const CSR_PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
/** Past this share of its lifetime a stored certificate is renewed rather than reused. */
const RENEW_AT = 0.8;

export interface CertPair {
  certPem: string;
  keyPem: string;
}

/** A stored `<prefix>-current.pem` (certificate and key in one file), or undefined when missing or unreadable. */
export function loadPair(path: string): (CertPair & { cert: X509Certificate }) | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    const certPem = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/.exec(text)?.[0];
    const keyPem = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----\n?/.exec(text)?.[0];
    if (!certPem || !keyPem) return undefined;
    const cert = new X509Certificate(certPem);
    const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
    if (Buffer.compare(fromKey, cert.publicKey.export({ type: 'spki', format: 'der' })) !== 0) return undefined;
    return { certPem, keyPem, cert };
  } catch {
    return undefined;
  }
}

/** Whether `cert` is still within the part of its lifetime in which it is reused, and names every host given. */
export function reusable(cert: X509Certificate, now: number, hosts: readonly string[] = []): boolean {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (!(now >= from && now < from + (to - from) * RENEW_AT)) return false;
  const san = cert.subjectAltName ?? '';
  return hosts.every((h) => san.split(', ').includes(isIP(h) ? `IP Address:${h}` : `DNS:${h}`));
}

/** Writes `<prefix>-<time>.pem` (mode 0600) and points `<prefix>-current.pem` at it, as kubelet's file store does. */
export function storePair(certDir: string, prefix: string, pair: CertPair): string {
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const file = join(certDir, `${prefix}-${stamp}.pem`);
  writeFileSync(file, pair.certPem + pair.keyPem, { mode: 0o600 });
  chmodSync(file, 0o600);
  const current = join(certDir, `${prefix}-current.pem`);
  const tmp = `${current}.tmp-${process.pid}`;
  if (existsSync(tmp)) unlinkSync(tmp);
  symlinkSync(file, tmp);
  renameSync(tmp, current);
  return current;
}

export interface CSRRequest {
  signerName: string;
  commonName: string;
  organizations: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usages: string[];
}

/** A fresh ECDSA P-256 key (kubelet's choice) and a PKCS#10 request for it. */
export async function makeCSR(r: CSRRequest): Promise<{ csrPem: string; keyPem: string; spki: Buffer }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const names = [...(r.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(r.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value }))];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [...r.organizations.map((o) => ({ O: [o] })), { CN: [r.commonName] }],
    keys: keys as never,
    signingAlgorithm: alg,
    ...(names.length ? { extensions: [new x509.SubjectAlternativeNameExtension(names)] } : {}),
  });
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  const spki = KeyObject.from(keys.publicKey).export({ type: 'spki', format: 'der' });
  return { csrPem: csr.toString('pem') + '\n', keyPem, spki };
}

/** kubelet's digestedName: the same key, subject and usages always give the same CSR name. */
function csrName(spki: Buffer, r: CSRRequest): string {
  const h = createHash('sha512').update(spki).update(r.commonName).update(r.organizations.join(',')).update(r.usages.join(',')).digest('base64url');
  return `node-csr-${h.slice(0, 43)}`;
}

/**
 * Files the CSR and waits for its certificate (client-go's certificate.RequestCertificate and
 * WaitForCertificate): a Denied or Failed condition ends the wait with its message.
 */
export async function requestCertificate(client: RestClient, r: CSRRequest, log: Logger, signal?: AbortSignal): Promise<CertPair> {
  const { csrPem, keyPem, spki } = await makeCSR(r);
  const name = csrName(spki, r);
  const body = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: r.signerName, usages: r.usages },
  };
  const created = await client.request('POST', CSR_PATH, body, 'application/json', signal);
  if (created.status !== 201 && created.status !== 409) throw new Error(`creating CertificateSigningRequest ${name}: ${created.status} ${created.body.message ?? ''}`);
  log(0, `CertificateSigningRequest ${name} (${r.signerName}) filed; waiting for it to be approved and issued`);
  for (let waited = 0; ; waited += 500) {
    const got = await client.request('GET', `${CSR_PATH}/${name}`, undefined, 'application/json', signal);
    if (got.status === 200) {
      const conds: Array<{ type: string; message?: string }> = got.body.status?.conditions ?? [];
      const bad = conds.find((c) => c.type === 'Denied' || c.type === 'Failed');
      if (bad) throw new Error(`CertificateSigningRequest ${name} is ${bad.type.toLowerCase()}: ${bad.message ?? ''}`);
      const cert = got.body.status?.certificate;
      if (typeof cert === 'string' && cert) return { certPem: Buffer.from(cert, 'base64').toString('utf8'), keyPem };
    } else if (got.status !== 404) {
      log(0, `reading CertificateSigningRequest ${name}: ${got.status} ${got.body.message ?? ''}`);
    }
    if (waited > 0 && waited % 60_000 === 0) log(0, `still waiting for CertificateSigningRequest ${name} (kubectl certificate approve ${name})`);
    await sleep(500, signal);
    if (signal?.aborted) throw new Error('stopped while waiting for a certificate');
  }
}

/** A kubeconfig whose user is the stored client certificate (kubelet's `default-auth` user, files by path). */
function nodeKubeconfig(server: string, caPem: string | undefined, certFile: string): string {
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'default-cluster', cluster: { server, ...(caPem ? { 'certificate-authority-data': Buffer.from(caPem).toString('base64') } : {}) } }],
      users: [{ name: 'default-auth', user: { 'client-certificate': certFile, 'client-key': certFile } }],
      contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth' } }],
      'current-context': 'default-context',
    },
    { lineWidth: 0 },
  );
}

/** Whether the kubeconfig at `path` has a client certificate still worth using (kubelet's isClientConfigStillValid). */
export function kubeconfigUsable(path: string, now = Date.now()): boolean {
  if (!existsSync(path)) return false;
  try {
    const c = loadKubeconfig(path);
    if (c.token) return true;
    if (!c.cert || !c.key) return false;
    return reusable(new X509Certificate(c.cert), now);
  } catch {
    return false;
  }
}

export interface BootstrapOptions {
  kubeconfig: string;
  bootstrapKubeconfig: string;
  certDir: string;
  nodeName: string;
  log: Logger;
  signal?: AbortSignal;
  userAgent?: string;
}

/**
 * kubelet's LoadClientCert: a usable `--kubeconfig` is kept; else a stored client certificate still in its reuse
 * window is written into a new kubeconfig; else one is requested with the bootstrap credential. Returns whether a
 * CSR was filed.
 */
export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<boolean> {
  if (kubeconfigUsable(o.kubeconfig)) return false;
  const boot = loadKubeconfig(o.bootstrapKubeconfig);
  const current = join(o.certDir, 'corelet-client-current.pem');
  const stored = loadPair(current);
  let filed = false;
  if (!stored || !reusable(stored.cert, Date.now())) {
    o.log(0, `no usable client certificate in ${o.kubeconfig}: requesting one with ${o.bootstrapKubeconfig}`);
    const client = new RestClient(boot, { userAgent: o.userAgent ?? 'corelet' });
    try {
      const pair = await requestCertificate(client, { signerName: CLIENT_SIGNER, commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'], usages: ['digital signature', 'client auth'] }, o.log, o.signal);
      storePair(o.certDir, 'corelet-client', pair);
      filed = true;
    } finally {
      client.close();
    }
  }
  mkdirSync(dirname(resolve(o.kubeconfig)), { recursive: true, mode: 0o700 });
  writeFileSync(o.kubeconfig, nodeKubeconfig(boot.server.href.replace(/\/$/, ''), boot.ca, resolve(current)), { mode: 0o600 });
  o.log(0, `wrote ${o.kubeconfig}: the node's client certificate is ${resolve(current)}`);
  return filed;
}

/** The serving certificate from `--cert-dir`, or from a new kubelet-serving CSR filed as the node itself. */
export async function servingCertificate(o: { client: RestClient; certDir: string; nodeName: string; hosts: string[]; log: Logger; signal?: AbortSignal }): Promise<CertPair & { filed: boolean }> {
  const current = join(o.certDir, 'corelet-server-current.pem');
  const stored = loadPair(current);
  if (stored && reusable(stored.cert, Date.now(), o.hosts)) return { certPem: stored.certPem, keyPem: stored.keyPem, filed: false };
  const dnsNames = o.hosts.filter((h) => !isIP(h));
  const ipAddresses = o.hosts.filter((h) => isIP(h));
  const pair = await requestCertificate(
    o.client,
    { signerName: SERVING_SIGNER, commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'], dnsNames, ipAddresses, usages: ['digital signature', 'server auth'] },
    o.log,
    o.signal,
  );
  storePair(o.certDir, 'corelet-server', pair);
  return { ...pair, filed: true };
}
