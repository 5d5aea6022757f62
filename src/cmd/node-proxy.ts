/**
 * The node proxy (upstream `pkg/registry/core/node/rest/proxy.go`): `/api/v1/nodes/{name}[:port]/proxy/{path}` is
 * sent to the node agent at the node's preferred address and daemon port over TLS, with the API server's client
 * certificate (`--kubelet-client-certificate`/`--kubelet-client-key`, default: the generated admin certificate) and
 * the node's serving certificate checked against `--kubelet-certificate-authority` (default: the generated CA).
 */
import { readFileSync } from 'node:fs';
import type { Node } from '../apis/core/v1/node-types.ts';
import type { Store } from '../registry/generic/store.ts';
import { nodeLocation } from '../registry/nodes/location.ts';
import type { Connecter } from '../registry/rest/scope.ts';
import { type ProxyTLS, proxyRequest } from '../server/proxy.ts';

export interface NodeProxyOptions {
  clientCertificate: string;
  clientKey: string;
  certificateAuthority: string;
  preferredAddressTypes: string[];
}

/** The TLS material from the flags, or the generated PKI's where a flag is not given. Unreadable files stop the start. */
export function nodeProxyTLS(o: NodeProxyOptions, generated: { ca: string; cert: string; key: string } | undefined): ProxyTLS {
  if ((o.clientCertificate === '') !== (o.clientKey === '')) throw new Error('--kubelet-client-certificate and --kubelet-client-key must be given together');
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`--${flag}: ${(e as Error).message}`);
    }
  };
  const ca = o.certificateAuthority ? read('kubelet-certificate-authority', o.certificateAuthority) : generated?.ca;
  const cert = o.clientCertificate ? read('kubelet-client-certificate', o.clientCertificate) : generated?.cert;
  const key = o.clientKey ? read('kubelet-client-key', o.clientKey) : generated?.key;
  return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
}

export function nodeProxyConnecter(store: Store<Node>, o: NodeProxyOptions, tls: ProxyTLS): Connecter {
  return {
    kind: 'NodeProxyOptions',
    // Upstream's connect verbs for nodes/proxy, as discovery lists them.
    verbs: ['create', 'delete', 'get', 'patch', 'update'],
    async connect(req, res, name, path, rawQuery) {
      const loc = await nodeLocation(store, name, o.preferredAddressTypes);
      const target = { scheme: loc.scheme, host: loc.host, port: loc.port, path: `${path || '/'}${rawQuery ? `?${rawQuery}` : ''}` };
      // Another port on the node (`name:port`) is not the agent: no client certificate is sent there.
      await proxyRequest(req, res, target, loc.agent ? tls : tls.ca ? { ca: tls.ca } : {});
    },
  };
}
