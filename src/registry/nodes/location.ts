/**
 * Where a node's agent listens (upstream `pkg/registry/core/node/strategy.go` ResourceLocation and the kubelet
 * client's NodeConnectionInfoGetter): `<name>` or `<scheme>:<name>:<port>` from the proxy path, the first of the
 * node's addresses in the preferred order, and its daemon endpoint's port (10250 when it reports none).
 */
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { Node } from '../../apis/core/v1/node-types.ts';
import { newBadRequest, newUnclassified } from '../../apimachinery/errors.ts';
import type { Store } from '../generic/store.ts';

/** kube-apiserver's default `--kubelet-preferred-address-types`. */
export const DEFAULT_PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
/** kube-apiserver's default `--kubelet-port`, for nodes that report no daemon endpoint. */
export const DEFAULT_KUBELET_PORT = 10250;

export interface NodeLocation {
  scheme: string;
  host: string;
  port: string;
  /** The node agent's own port (the API server's client certificate and CA apply), not another one on the node. */
  agent: boolean;
}

/** Upstream utilnet.SplitSchemeNamePort: `name`, `name:port` or `scheme:name:port` (scheme http or https). */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name = '';
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  if (!name || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  // The port is taken as given (upstream checks only the shape); a port nothing listens on fails at the dial.
  return { scheme, name, port };
}

/** Go's %v of []NodeAddress: `[{InternalIP 10.0.0.1} {Hostname n1}]`. */
function goAddresses(node: Node): string {
  return `[${(node.status?.addresses ?? []).map((a) => `{${a.type} ${a.address}}`).join(' ')}]`;
}

/** Upstream's IsProxyableIP: loopback and link-local addresses are never proxied to (they would be the server's own). */
function proxyableIP(ip: string): boolean {
  if (isIP(ip) === 4) return !ip.startsWith('127.') && !ip.startsWith('169.254.') && ip !== '0.0.0.0';
  const v6 = ip.toLowerCase();
  return v6 !== '::1' && v6 !== '::' && !/^fe[89ab]/.test(v6) && !v6.startsWith('ff01') && !v6.startsWith('ff02') && !v6.startsWith('::ffff:127.');
}

async function checkProxyable(host: string): Promise<void> {
  let ips: string[];
  try {
    ips = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    // Upstream answers a host that does not resolve with the resolver's error as a bad request.
    throw newBadRequest(`lookup ${host}: no such host`);
  }
  if (!ips.length || ips.some((ip) => !proxyableIP(ip))) throw newBadRequest('address not allowed');
}

export async function nodeLocation(store: Store<Node>, id: string, preferredAddressTypes: readonly string[], defaultPort = DEFAULT_KUBELET_PORT): Promise<NodeLocation> {
  const split = splitSchemeNamePort(id);
  if (!split) throw newBadRequest(`invalid node request "${id}"`);
  const served = await store.get('', split.name, undefined);
  const node = JSON.parse(served.value.toString('utf8')) as Node;
  let host: string | undefined;
  for (const type of preferredAddressTypes) {
    host = node.status?.addresses?.find((a) => a.type === type)?.address;
    if (host) break;
  }
  // Upstream's NoMatchError is a plain error: a 500 with its text.
  if (!host) throw newUnclassified(`no preferred addresses found; known addresses: ${goAddresses(node)}`);
  await checkProxyable(host);
  const reported = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  const port = String(reported > 0 ? reported : defaultPort);
  if (split.port === '' || split.port === port) return { scheme: 'https', host, port, agent: true };
  return { scheme: split.scheme || 'http', host, port: split.port, agent: false };
}
