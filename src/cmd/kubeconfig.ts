/**
 * The admin kubeconfig written next to the generated certificates, so that
 * `kubectl --kubeconfig <data-dir>/admin.kubeconfig get events.events.cluster.io` works at once.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { kubeconfigYAML } from '../client/kubeconfig.ts';
import { writeAtomic } from './certs.ts';

export const KUBECONFIG_NAME = 'core-apiserver';

/**
 * Writes a kubeconfig (mode 0600) with one cluster, one user and one context, all named `core-apiserver`
 * (the user: `admin`), the certificates embedded as base64 `*-data`, and current-context set.
 */
export function writeAdminKubeconfig(path: string, opts: { server: string; caPem: string; certPem: string; keyPem: string; user?: string }): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeAtomic(path, kubeconfigYAML({ name: KUBECONFIG_NAME, ...opts, user: opts.user ?? 'admin' }), 0o600);
}
