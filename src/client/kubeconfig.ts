/**
 * Kubeconfig files as clients read and write them: the current context's cluster and user (inline `*-data`, or
 * files relative to the kubeconfig, or a bearer token), and the one-cluster, one-user form the server writes for
 * its admin and tests write for other identities.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';

/** How to reach and authenticate to one API server. */
export interface ClientConfig {
  server: URL;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
}

type Obj = Record<string, any>;

/** The current context's cluster and user (the first context when none is current). */
export function loadKubeconfig(path: string): ClientConfig {
  const cfg = parseYaml(readFileSync(path, 'utf8')) as Obj;
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts as Obj[] | undefined)?.find((c) => c.name === ctxName)?.context ?? (cfg.contexts as Obj[] | undefined)?.[0]?.context;
  if (!ctx) throw new Error(`${path}: no context`);
  const cluster = (cfg.clusters as Obj[] | undefined)?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = (cfg.users as Obj[] | undefined)?.find((u) => u.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`${path}: cluster ${ctx.cluster} has no server`);
  const base = dirname(resolve(path));
  const pem = (data: unknown, file: unknown) =>
    typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : typeof file === 'string' ? readFileSync(resolve(base, file), 'utf8') : undefined;
  const out: ClientConfig = { server: new URL(cluster.server) };
  const ca = pem(cluster['certificate-authority-data'], cluster['certificate-authority']);
  if (ca) out.ca = ca;
  const cert = pem(user['client-certificate-data'], user['client-certificate']);
  const key = pem(user['client-key-data'], user['client-key']);
  if (cert && key) Object.assign(out, { cert, key });
  const token = typeof user.token === 'string' ? user.token : typeof user.tokenFile === 'string' ? readFileSync(resolve(base, user.tokenFile), 'utf8').trim() : undefined;
  if (token) out.token = token;
  return out;
}

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

/**
 * A kubeconfig with one cluster, one user and one context (cluster and context named `name`), the certificates
 * embedded as base64 `*-data`, and current-context set.
 */
export function kubeconfigYAML(opts: { name: string; user: string; server: string; caPem: string; certPem: string; keyPem: string }): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: opts.name, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caPem) } }],
    users: [{ name: opts.user, user: { 'client-certificate-data': b64(opts.certPem), 'client-key-data': b64(opts.keyPem) } }],
    contexts: [{ name: opts.name, context: { cluster: opts.name, user: opts.user } }],
    'current-context': opts.name,
    preferences: {},
  };
  // Base64 lines are long; never fold them.
  return stringify(config, { lineWidth: 0 });
}
