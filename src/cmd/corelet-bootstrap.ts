/**
 * The corelet's TLS bootstrap flags (kubelet's names) and what run() does with them: obtain the node's client
 * certificate with `--bootstrap-kubeconfig` when `--kubeconfig` has none usable, and with
 * `--rotate-server-certificates` the serving certificate from a kubelet-serving CSR. The work itself is in
 * src/corelet/certificates.ts.
 */
import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { RestClient } from '../client/rest.ts';
import { bootstrapClientCertificate, servingCertificate } from '../corelet/certificates.ts';
import type { Logger } from '../corelet/runtime.ts';
import { FlagError, type FlagSet } from './flagset.ts';

/** kubelet's default is /var/lib/kubelet/pki; the corelet keeps its state beside the server's data by default. */
export const DEFAULT_CERT_DIR = 'data/corelet/pki';

export function bootstrapFlags(fs: FlagSet, s: { section: string }) {
  return {
    bootstrapKubeconfig: fs.string('bootstrap-kubeconfig', '', 'Path to a kubeconfig file that will be used to get client certificate for corelet. If the file specified by --kubeconfig does not exist, the bootstrap kubeconfig is used to request a client certificate from the API server. On success, a kubeconfig file referencing the generated client certificate and key is written to the path specified by --kubeconfig. The client certificate and key file will be stored in the directory pointed by --cert-dir.', s),
    certDir: fs.string('cert-dir', DEFAULT_CERT_DIR, 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored. (kubelet: /var/lib/kubelet/pki; relative paths are taken from the working directory.)', s),
    rotateServerCertificates: fs.bool('rotate-server-certificates', false, 'Auto-request the serving certificate by requesting a certificate signing request from the API server (signer kubernetes.io/kubelet-serving) when --tls-cert-file is not given. The certificate is stored in --cert-dir and reused until near expiry.', s),
    nodeIP: fs.string('node-ip', '', 'IP address of the node, reported as its InternalIP and named in its serving certificate. If unset: --address when it is a specific address, else the machine\'s first non-loopback IPv4 address.', s),
  };
}

export interface BootstrapSettings {
  bootstrapKubeconfig: string;
  certDir: string;
  rotateServerCertificates: boolean;
  nodeIP: string;
}

/** Checks the bootstrap flags; `kubeconfig` may be missing when a bootstrap kubeconfig will write it. */
export function checkBootstrapFlags(f: ReturnType<typeof bootstrapFlags>, kubeconfig: string, address: string): BootstrapSettings {
  const boot = f.bootstrapKubeconfig.value;
  if (boot && !existsSync(boot)) throw new FlagError(`--bootstrap-kubeconfig: ${boot}: no such file`);
  if (boot && !kubeconfig) throw new FlagError('--bootstrap-kubeconfig needs --kubeconfig: the path the node\'s kubeconfig is written to');
  if (kubeconfig && !boot && !existsSync(kubeconfig)) throw new FlagError(`--kubeconfig: ${kubeconfig}: no such file`);
  if (f.rotateServerCertificates.value && !kubeconfig) throw new FlagError('--rotate-server-certificates needs --kubeconfig (or --bootstrap-kubeconfig): the serving certificate is requested from the API server');
  if (f.nodeIP.value && !isIP(f.nodeIP.value)) throw new FlagError(`--node-ip: invalid IP address ${JSON.stringify(f.nodeIP.value)}`);
  return {
    bootstrapKubeconfig: boot,
    certDir: resolve(f.certDir.value),
    rotateServerCertificates: f.rotateServerCertificates.value,
    nodeIP: f.nodeIP.value || defaultNodeIP(address),
  };
}

/** kubelet's default node IP, simplified: the serving address when specific, else the first non-loopback IPv4. */
export function defaultNodeIP(address: string): string {
  if (address !== '0.0.0.0' && address !== '::') return address;
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

/** Runs the client certificate bootstrap, retrying while the API server cannot be reached; a Denied or Failed CSR ends it. */
export async function obtainClientCertificate(o: { kubeconfig: string; settings: BootstrapSettings; nodeName: string; log: Logger; userAgent: string }): Promise<void> {
  for (;;) {
    try {
      await bootstrapClientCertificate({ kubeconfig: o.kubeconfig, bootstrapKubeconfig: o.settings.bootstrapKubeconfig, certDir: o.settings.certDir, nodeName: o.nodeName, log: o.log, userAgent: o.userAgent });
      return;
    } catch (e) {
      const msg = (e as Error).message;
      if (/ is (denied|failed):|: 4\d\d /.test(msg)) throw e;
      o.log(0, `TLS bootstrap: ${msg}; retrying in 2s`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}

/** The serving certificate from a kubelet-serving CSR (or the one stored), for the node's name and IP. */
export async function obtainServingCertificate(o: { client: RestClient; settings: BootstrapSettings; nodeName: string; log: Logger }): Promise<{ certPem: string; keyPem: string }> {
  const hosts = [...new Set([o.nodeName, o.settings.nodeIP])];
  const r = await servingCertificate({ client: o.client, certDir: o.settings.certDir, nodeName: o.nodeName, hosts, log: o.log });
  o.log(0, r.filed ? `serving certificate issued for ${hosts.join(', ')}` : `serving certificate reused from ${o.settings.certDir}`);
  return { certPem: r.certPem, keyPem: r.keyPem };
}
