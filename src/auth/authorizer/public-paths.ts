/**
 * Paths every client may GET without credentials, as upstream's `system:public-info-viewer` ClusterRole grants them
 * (upstream reaches them through the anonymous authenticator and RBAC; until those exist here, the authentication
 * filter lets such a request through without a user and the authorization filter does not ask).
 */
const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

/**
 * Exact paths: `/readyz/sqlite` and other single checks need credentials, as upstream. Only the `get` verb is
 * granted, so other methods are not public.
 */
export function isPublicPath(pathname: string, method = 'GET'): boolean {
  return (method === 'GET' || method === 'get') && PUBLIC_PATHS.has(pathname);
}
