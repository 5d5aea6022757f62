/**
 * Paths every client may GET, as upstream's `system:public-info-viewer` ClusterRole grants them to
 * `system:authenticated` and `system:unauthenticated` (anonymous requests reach them as `system:anonymous`; with
 * `--anonymous-auth=false` a request without credentials is a 401 here too). Until RBAC exists, the authorization
 * filter does not ask about them.
 */
const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

/**
 * Exact paths: `/readyz/sqlite` and other single checks need credentials, as upstream. Only the `get` verb is
 * granted, so other methods are not public.
 */
export function isPublicPath(pathname: string, method = 'GET'): boolean {
  return (method === 'GET' || method === 'get') && PUBLIC_PATHS.has(pathname);
}
