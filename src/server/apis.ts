/**
 * Non-resource paths every Kubernetes client expects: discovery (legacy and aggregated), /version, and the
 * minimal core `namespaces/{ns}` kubectl probes after a 404 (we have no Namespace resource: every namespace is
 * Active, as events may be written into any namespace).
 */
import { newMethodNotAllowed, newNotFound } from '../apimachinery/errors.ts';
import { goJSON } from '../apimachinery/codec/encode.ts';
import {
  aggregatedContentType,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  wantsAggregated,
} from './discovery/documents.ts';
import type { APIResourceInfo } from '../registry/rest/resource-info.ts';
import { type ResourceScope, resourceInfo } from '../registry/rest/scope.ts';
import { OpenAPIService } from './openapi/handler.ts';
import { openAPIResource } from './openapi/types.ts';
import type { Request, Response } from './http-types.ts';
import { versionInfo } from '../version.ts';
import type { PathHandler } from './api-handler.ts';
import { negotiateOutput } from './negotiation.ts';
import { writeValue } from './responsewriters.ts';

const CORE_NAMESPACES: APIResourceInfo = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  namespaced: false,
  verbs: ['get'],
  shortNames: ['ns'],
};

function sendJSON(req: Request, res: Response, value: unknown, contentType = 'application/json'): void {
  const body = Buffer.from(goJSON(value) + '\n');
  const etag = `"${hash(body)}"`;
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { etag, vary: 'Accept' });
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length), etag, vary: 'Accept' });
  res.end(body);
}

function hash(b: Buffer): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i]!, 0x01000193) >>> 0;
  return h.toString(16).toUpperCase();
}

/** Discovery over the served resources (the core group is `''`). */
function discoveryHandler(resources: APIResourceInfo[], serverAddress: () => string): PathHandler {
  const byGV = new Map<string, APIResourceInfo[]>();
  for (const r of [CORE_NAMESPACES, ...resources]) {
    const gv = r.group ? `${r.group}/${r.version}` : r.version;
    byGV.set(gv, [...(byGV.get(gv) ?? []), r]);
  }
  const groups = new Map<string, string[]>();
  for (const r of resources) if (r.group && !groups.get(r.group)?.includes(r.version)) groups.set(r.group, [...(groups.get(r.group) ?? []), r.version]);
  const groupList = [...groups].map(([name, versions]) => ({ name, versions }));
  const aggregated = (core: boolean) =>
    (core ? [{ name: '', versions: ['v1'] }] : groupList).map((g) => ({
      name: g.name,
      versions: g.versions.map((v) => ({ version: v, resources: byGV.get(g.name ? `${g.name}/${v}` : v) ?? [] })),
    }));

  return (req, res, pathname) => {
    const method = req.method ?? 'GET';
    const isDiscovery = pathname === '/api' || pathname === '/apis' || pathname === '/api/v1' || pathname.startsWith('/apis/');
    if (!isDiscovery) return false;
    const parts = pathname.split('/').filter(Boolean);
    if (pathname === '/api' || pathname === '/apis') {
      if (method !== 'GET') throw newMethodNotAllowed();
      const agg = wantsAggregated(req.headers.accept);
      if (agg) {
        sendJSON(req, res, aggregatedDiscovery(agg, aggregated(pathname === '/api')), aggregatedContentType(agg));
        return true;
      }
      sendJSON(req, res, pathname === '/api' ? apiVersions(serverAddress()) : apiGroupList(groupList));
      return true;
    }
    if (pathname === '/api/v1') {
      if (method !== 'GET') throw newMethodNotAllowed();
      sendJSON(req, res, apiResourceList('v1', byGV.get('v1') ?? []));
      return true;
    }
    if (parts.length === 2 && groups.has(parts[1]!)) {
      if (method !== 'GET') throw newMethodNotAllowed();
      sendJSON(req, res, apiGroup({ name: parts[1]!, versions: groups.get(parts[1]!)! }));
      return true;
    }
    if (parts.length === 3 && byGV.has(`${parts[1]}/${parts[2]}`)) {
      if (method !== 'GET') throw newMethodNotAllowed();
      sendJSON(req, res, apiResourceList(`${parts[1]}/${parts[2]}`, byGV.get(`${parts[1]}/${parts[2]}`)!));
      return true;
    }
    return false;
  };
}

/** `GET /api/v1/namespaces/{ns}`: an Active Namespace for any valid name. */
const namespaceHandler: PathHandler = (req, res, pathname, query) => {
  const m = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(pathname);
  if (!m) return false;
  if (req.method !== 'GET') throw newMethodNotAllowed();
  const name = decodeURIComponent(m[1]!);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 63) throw newNotFound({ group: '', resource: 'namespaces' }, name);
  const n = negotiateOutput(req.headers.accept, { stream: false, userAgent: req.headers['user-agent'] ?? '', prettyParam: query.get('pretty') });
  writeValue(res, 200, { kind: 'Namespace', apiVersion: 'v1', metadata: { name }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }, { mediaType: n.mediaType, pretty: n.pretty });
  return true;
};

const versionHandler: PathHandler = (req, res, pathname) => {
  if (pathname !== '/version' && pathname !== '/version/') return false;
  if (req.method !== 'GET') throw newMethodNotAllowed();
  const body = Buffer.from(JSON.stringify(versionInfo, null, 2));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.end(body);
  return true;
};

/**
 * The API surface of the registered resources (upstream InstallAPIGroup): discovery, OpenAPI, /version and the
 * namespace probe as path handlers, the path prefixes of the served group versions, and the paths served. `referenceKinds` are
 * listed in discovery without being served (see CORE_REFERENCE_KINDS).
 */
export function installAPIs(
  scopes: readonly ResourceScope[],
  opts: { referenceKinds?: APIResourceInfo[]; serverAddress: () => string },
): { pathHandlers: PathHandler[]; servedPrefixes: string[]; paths: string[] } {
  const openapi = new OpenAPIService(scopes.map(openAPIResource));
  const prefixes = new Set(scopes.map((s) => (s.group ? `/apis/${s.groupVersion}` : `/api/${s.version}`)));
  return {
    pathHandlers: [
      versionHandler,
      discoveryHandler([...scopes.map(resourceInfo), ...(opts.referenceKinds ?? [])], opts.serverAddress),
      namespaceHandler,
      (req, res, pathname, query) => openapi.handle(req, res, pathname, query),
    ],
    servedPrefixes: [...prefixes],
    // The roots of what these handlers serve, for the Paths of /statusz.
    paths: ['/api', '/apis', '/openapi/v2', '/openapi/v3', '/version', ...prefixes],
  };
}
