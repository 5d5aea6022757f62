/**
 * The admin kubeconfig written next to the generated certificates, so that
 * `kubectl --kubeconfig <data-dir>/admin.kubeconfig get events.events.cluster.io` works at once.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { writeAtomic } from './certs.ts';

export const KUBECONFIG_NAME = 'core-apiserver';

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

/**
 * Writes a kubeconfig (mode 0600) with one cluster, one user and one context, all named `core-apiserver`
 * (the user: `admin`), the certificates embedded as base64 `*-data`, and current-context set.
 */
export function writeAdminKubeconfig(path: string, opts: { server: string; caPem: string; certPem: string; keyPem: string }): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: KUBECONFIG_NAME, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caPem) } }],
    users: [{ name: 'admin', user: { 'client-certificate-data': b64(opts.certPem), 'client-key-data': b64(opts.keyPem) } }],
    contexts: [{ name: KUBECONFIG_NAME, context: { cluster: KUBECONFIG_NAME, user: 'admin' } }],
    'current-context': KUBECONFIG_NAME,
    preferences: {},
  };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Base64 lines are long; never fold them.
  writeAtomic(path, stringify(config, { lineWidth: 0 }), 0o600);
}
