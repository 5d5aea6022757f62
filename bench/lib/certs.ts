/**
 * Credentials for the bench: the admin client certificate from the server's generated kubeconfig (what a user
 * hands kubectl), and the server's own certificate files, which the bare baselines reuse so that every TLS
 * handshake and record uses the same kind of key (ECDSA P-256) as the real server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYAML } from 'yaml';

export interface ClientCreds {
  ca: string;
  cert: string;
  key: string;
}

/** CA, client certificate and key (PEM) of the first cluster and user of a kubeconfig. */
export function kubeconfigCreds(path: string): ClientCreds {
  const kc = parseYAML(readFileSync(path, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  const b64 = (s: string | undefined, what: string) => {
    if (!s) throw new Error(`${path}: no ${what}`);
    return Buffer.from(s, 'base64').toString('utf8');
  };
  return {
    ca: b64(kc.clusters[0]?.cluster['certificate-authority-data'], 'certificate-authority-data'),
    cert: b64(kc.users[0]?.user['client-certificate-data'], 'client-certificate-data'),
    key: b64(kc.users[0]?.user['client-key-data'], 'client-key-data'),
  };
}

export interface ServerCreds {
  cert: string;
  key: string;
  /** CA that signs client certificates. */
  clientCA: string;
}

/** The serving certificate, key and CA the real server generated under `<dataDir>/pki`. */
export function serverCreds(dataDir: string): ServerCreds {
  const pki = join(dataDir, 'pki');
  return {
    cert: readFileSync(join(pki, 'apiserver.crt'), 'utf8'),
    key: readFileSync(join(pki, 'apiserver.key'), 'utf8'),
    clientCA: readFileSync(join(pki, 'ca.crt'), 'utf8'),
  };
}
