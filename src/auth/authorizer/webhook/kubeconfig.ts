/**
 * Where a webhook lives and how to talk to it, from a kubeconfig file as upstream's webhooks read one
 * (client-go clientcmd through `apiserver/pkg/util/webhook.LoadKubeconfig`): the current context's cluster gives the
 * URL (`server`, POSTed to exactly, path included) and the CA (`certificate-authority` or `-data`), its user the
 * client certificate and key (`client-certificate`/`client-key` or `-data`) or a bearer token (`token`,
 * `tokenFile`). Relative file names are relative to the kubeconfig's directory, as clientcmd resolves them.
 *
 * Read once when the authorizer is built (start-up or reload): a file that cannot be used stops the start or keeps
 * the configuration in force, never fails a request later.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYAML } from 'yaml';

export interface WebhookConnection {
  readonly url: URL;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly servername?: string;
  readonly insecureSkipTLSVerify: boolean;
}

type Named<T> = { name?: unknown; [k: string]: unknown } & Partial<Record<'cluster' | 'user' | 'context', T>>;
type Loose = Record<string, unknown>;

function pick(list: unknown, name: string | undefined, what: string, path: string): Loose | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw new Error(`${path}: ${what}s must be a list`);
  const entries = list as Named<Loose>[];
  // Without a current context a file with one cluster and one user still names its webhook unambiguously.
  const found = name === undefined ? (entries.length === 1 ? entries[0] : undefined) : entries.find((e) => e?.name === name);
  return found?.[what as 'cluster' | 'user'] as Loose | undefined;
}

function text(o: Loose | undefined, k: string, path: string): string | undefined {
  const v = o?.[k];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`${path}: ${k} must be a string`);
  return v;
}

/** A PEM from `<field>-data` (base64) or `<field>` (a file name). */
function pem(o: Loose | undefined, field: string, base: string, path: string): string | undefined {
  const data = text(o, `${field}-data`, path);
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const file = text(o, field, path);
  if (file === undefined) return undefined;
  const full = isAbsolute(file) ? file : join(base, file);
  try {
    return readFileSync(full, 'utf8');
  } catch (e) {
    throw new Error(`${path}: unable to read ${field} ${full}: ${(e as Error).message}`);
  }
}

export function loadWebhookConnection(path: string): WebhookConnection {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
    throw new Error(`invalid webhook kubeconfig ${path}: open ${path}: ${reason}`);
  }
  let doc: unknown;
  try {
    doc = parseYAML(raw);
  } catch (e) {
    throw new Error(`invalid webhook kubeconfig ${path}: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`invalid webhook kubeconfig ${path}: not a kubeconfig (expected a mapping)`);
  const kc = doc as Loose;
  const base = dirname(path);
  const currentName = typeof kc['current-context'] === 'string' && kc['current-context'] !== '' ? (kc['current-context'] as string) : undefined;
  let clusterName: string | undefined;
  let userName: string | undefined;
  if (currentName !== undefined) {
    const ctx = pick(kc.contexts, currentName, 'context', path);
    if (!ctx) throw new Error(`invalid webhook kubeconfig ${path}: context "${currentName}" does not exist`);
    clusterName = text(ctx, 'cluster', path);
    userName = text(ctx, 'user', path);
  }
  const cluster = pick(kc.clusters, clusterName, 'cluster', path);
  const server = text(cluster, 'server', path);
  if (!server) throw new Error(`invalid webhook kubeconfig ${path}: cluster has no server defined`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new Error(`invalid webhook kubeconfig ${path}: server ${JSON.stringify(server)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`invalid webhook kubeconfig ${path}: server ${JSON.stringify(server)}: scheme must be https or http`);
  const user = userName === undefined && currentName !== undefined ? undefined : pick(kc.users, userName, 'user', path);
  const cert = pem(user, 'client-certificate', base, path);
  const key = pem(user, 'client-key', base, path);
  if ((cert === undefined) !== (key === undefined)) throw new Error(`invalid webhook kubeconfig ${path}: client-certificate and client-key must be given together`);
  let token = text(user, 'token', path);
  const tokenFile = text(user, 'tokenFile', path);
  if (token === undefined && tokenFile !== undefined) {
    try {
      token = readFileSync(isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile), 'utf8').trim();
    } catch (e) {
      throw new Error(`invalid webhook kubeconfig ${path}: unable to read tokenFile: ${(e as Error).message}`);
    }
  }
  const servername = text(cluster, 'tls-server-name', path);
  const ca = pem(cluster, 'certificate-authority', base, path);
  return {
    url,
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert, key: key! } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(servername !== undefined ? { servername } : {}),
    insecureSkipTLSVerify: cluster?.['insecure-skip-tls-verify'] === true,
  };
}
