/**
 * The certificate controllers kube-controller-manager runs, in this process: the approver (csrapproving, with this
 * server's kubelet-serving rule; see registry/certificatesigningrequests/approver.ts) and the signer (csrsigning)
 * for `kubernetes.io/kube-apiserver-client-kubelet` and `kubernetes.io/kubelet-serving`, signing with
 * `--cluster-signing-cert-file`/`--cluster-signing-key-file` or the generated cluster CA. Both follow the CSRs through
 * an informer and write through the `approval` and `status` subresources' stores, as a controller with those
 * permissions would.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CertificateSigningRequest, CSRCondition } from '../apis/certificates/v1/types.ts';
import { KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from '../apis/certificates/v1/types.ts';
import { formatTime } from '../apimachinery/codec/time.ts';
import { type RequesterAuthorize, decideApproval } from '../registry/certificatesigningrequests/approver.ts';
import { validateKubeletClientCSR, validateKubeletServingCSR } from '../registry/certificatesigningrequests/kubelet-csr.ts';
import { parseCSRField } from '../registry/certificatesigningrequests/request.ts';
import type { CSRResources } from '../registry/certificatesigningrequests/storage.ts';
import { Informer } from '../registry/generic/informer.ts';
import { log } from '../util/log.ts';
import { type SigningKey, importSigningKey, keyMatchesCertificate, signCertificate } from './x509gen.ts';

/** Upstream's signer back-dates notBefore this much for clock skew. */
const BACKDATE_MS = 5 * 60_000;

export interface SigningCA {
  certPem: string;
  key: SigningKey;
  notAfter: Date;
}

/** The signing CA from the flags (both or neither), else the generated one; an unusable file stops the start. */
export async function loadSigningCA(flags: { certFile: string; keyFile: string }, generated: { certPem: string; keyPem: string } | undefined): Promise<SigningCA | undefined> {
  let certPem: string;
  let keyPem: string;
  if (flags.certFile) {
    try {
      certPem = readFileSync(flags.certFile, 'utf8');
    } catch (e) {
      throw new Error(`--cluster-signing-cert-file: ${(e as Error).message}`);
    }
    try {
      keyPem = readFileSync(flags.keyFile, 'utf8');
    } catch (e) {
      throw new Error(`--cluster-signing-key-file: ${(e as Error).message}`);
    }
  } else if (generated) {
    ({ certPem, keyPem } = generated);
  } else {
    return undefined;
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (e) {
    throw new Error(`--cluster-signing-cert-file: ${(e as Error).message}`);
  }
  if (!cert.ca) throw new Error('--cluster-signing-cert-file: the certificate is not a CA');
  let key: SigningKey;
  try {
    key = await importSigningKey(keyPem);
  } catch (e) {
    throw new Error(`--cluster-signing-key-file: ${(e as Error).message}`);
  }
  if (!keyMatchesCertificate(cert, keyPem)) throw new Error('--cluster-signing-key-file: the key does not match --cluster-signing-cert-file');
  return { certPem, key, notAfter: new Date(cert.validTo) };
}

const hasCondition = (csr: CertificateSigningRequest, type: string) => (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

export interface CSRControllerOptions {
  resources: CSRResources;
  authorize: RequesterAuthorize;
  /** Absent: no signer runs (no CA key: the serving and client CAs came from files). */
  ca: SigningCA | undefined;
  durationMs: number;
}

export class CSRControllers {
  readonly #o: CSRControllerOptions;
  readonly #informer: Informer<CertificateSigningRequest>;
  readonly #pending = new Set<string>();
  #running = false;
  #stopped = false;

  constructor(o: CSRControllerOptions) {
    this.#o = o;
    const r = o.resources.csrs;
    this.#informer = new Informer<CertificateSigningRequest>(r.cacher, r.store.prefix(''), (v) => r.scope.codec.decode(v) as unknown as CertificateSigningRequest);
    this.#informer.onChange((csr, deleted) => {
      if (!deleted && csr.metadata.name) this.#enqueue(csr.metadata.name);
    });
  }

  start(): Promise<void> {
    return this.#informer.start();
  }

  stop(): void {
    this.#stopped = true;
    this.#informer.stop();
  }

  #enqueue(name: string): void {
    this.#pending.add(name);
    if (!this.#running) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#pending.size && !this.#stopped) {
        const name = this.#pending.values().next().value!;
        this.#pending.delete(name);
        const csr = this.#informer.get(this.#o.resources.csrs.store.key('', name));
        if (!csr) continue;
        try {
          await this.#sync(csr);
        } catch (e) {
          log.error('CertificateSigningRequest sync failed', { csr: name, err: (e as Error).message });
        }
      }
    } finally {
      this.#running = false;
    }
  }

  async #sync(csr: CertificateSigningRequest): Promise<void> {
    const name = csr.metadata.name!;
    if (!hasCondition(csr, 'Approved') && !hasCondition(csr, 'Denied')) {
      const d = await decideApproval(csr, this.#o.authorize);
      if (!d.approve) {
        log.V(2).info('CertificateSigningRequest not auto-approved', { csr: name, why: d.why });
        return;
      }
      await this.#o.resources.approval.store.update('', name, {
        updatedObject: (cur) => {
          const next = structuredClone(cur!) as CertificateSigningRequest;
          const now = formatTime(Date.now());
          const c: CSRCondition = { type: 'Approved', status: 'True', reason: d.reason, message: d.message, lastUpdateTime: now, lastTransitionTime: now };
          (next.status ??= {}).conditions = [...(next.status.conditions ?? []), c];
          return next;
        },
      }, { dryRun: false, manager: 'csrapproving' });
      log.info('Approved CertificateSigningRequest', { csr: name, signer: csr.spec.signerName, requestor: csr.spec.username ?? '' });
      return; // the approval's watch event brings it back for signing
    }
    if (!hasCondition(csr, 'Approved') || hasCondition(csr, 'Failed') || csr.status?.certificate || !this.#o.ca) return;
    const signer = csr.spec.signerName;
    if (signer !== KUBELET_CLIENT_SIGNER && signer !== KUBELET_SERVING_SIGNER) return;
    let failure = '';
    let certPem = '';
    try {
      const req = parseCSRField(csr.spec.request);
      const usages = csr.spec.usages ?? [];
      failure = signer === KUBELET_CLIENT_SIGNER ? validateKubeletClientCSR(req, usages) : validateKubeletServingCSR(req, usages);
      if (!failure) {
        const now = Date.now();
        const requested = csr.spec.expirationSeconds ? csr.spec.expirationSeconds * 1000 : this.#o.durationMs;
        const notAfter = new Date(Math.min(now + Math.min(requested, this.#o.durationMs), this.#o.ca.notAfter.getTime()));
        certPem = await signCertificate(
          {
            subject: [...(req.organizations.length ? [{ O: req.organizations }] : []), { CN: [req.commonName] }],
            spki: req.spki,
            notBefore: new Date(now - BACKDATE_MS),
            notAfter,
            usages,
            dnsNames: req.dnsNames,
            ipAddresses: req.ipAddresses,
          },
          this.#o.ca,
        );
      }
    } catch (e) {
      failure = (e as Error).message;
    }
    await this.#o.resources.status.store.update('', name, {
      updatedObject: (cur) => {
        const next = structuredClone(cur!) as CertificateSigningRequest;
        const status = (next.status ??= {});
        if (failure) {
          const now = formatTime(Date.now());
          status.conditions = [...(status.conditions ?? []), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: failure, lastUpdateTime: now, lastTransitionTime: now }];
        } else {
          status.certificate = Buffer.from(certPem).toString('base64');
        }
        return next;
      },
    }, { dryRun: false, manager: 'csrsigning' });
    if (failure) log.warning('CertificateSigningRequest failed validation', { csr: name, signer, err: failure });
    else log.info('Signed CertificateSigningRequest', { csr: name, signer });
  }
}
