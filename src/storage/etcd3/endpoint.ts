/**
 * --etcd-servers entries, parsed without loading gRPC (the flags are checked before any backend is chosen).
 */

/** A parsed endpoint: the gRPC target and whether it speaks TLS. */
export interface Endpoint {
  url: string;
  target: string;
  tls: boolean;
}

/** Parses one --etcd-servers entry; throws a message naming the entry when it is not an http(s) URL with a host. */
export function parseEndpoint(url: string): Endpoint {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`invalid etcd server URL "${url}": expected http://host:port or https://host:port`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new Error(`invalid etcd server URL "${url}": scheme must be http or https`);
  }
  if (!u.hostname) throw new Error(`invalid etcd server URL "${url}": no host`);
  if (u.pathname !== '/' && u.pathname !== '') throw new Error(`invalid etcd server URL "${url}": a path is not allowed`);
  const port = u.port || '2379';
  return { url, target: `${u.hostname}:${port}`, tls: u.protocol === 'https:' };
}
