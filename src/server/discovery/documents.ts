/**
 * Discovery documents, legacy (`/api`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`) and aggregated
 * (`apidiscovery.k8s.io` v2 / v2beta1 on `/api` and `/apis`). All functions return plain JSON-able objects whose key
 * order is the one kube's Go structs produce.
 */
import { type APIResourceInfo, storageVersionHash } from '../../registry/rest/resource-info.ts';

export interface GroupVersions {
  name: string;
  /** In preference order: the first one is the preferred version. */
  versions: string[];
}

export interface AggregatedGroup {
  /** '' for the core group (served on `/api`). */
  name: string;
  /** In preference order. */
  versions: { version: string; resources: APIResourceInfo[] }[];
}

export type AggregatedVersion = 'v2' | 'v2beta1';

/** `/api`: the core group's versions and the address clients should use. */
export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: GroupVersions): { name: string; versions: object[]; preferredVersion?: object } {
  const versions = group.versions.map((version) => ({ groupVersion: `${group.name}/${version}`, version }));
  return versions.length > 0 ? { name: group.name, versions, preferredVersion: versions[0] } : { name: group.name, versions };
}

/** `/apis`: every named group with its versions. */
export function apiGroupList(groups: GroupVersions[]): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(groupEntry) };
}

/** `/apis/<group>`. */
export function apiGroup(group: GroupVersions): object {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group) };
}

function hashFor(info: APIResourceInfo): string {
  return info.storageVersionHash ?? storageVersionHash(info.group, info.version, info.kind);
}

/** `/api/v1` or `/apis/<g>/<v>`: the resources of one group version. */
export function apiResourceList(groupVersion: string, resources: APIResourceInfo[]): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: resources.flatMap((r) => {
      const hash = hashFor(r);
      return [
        {
          name: r.resource,
          singularName: r.singular,
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: r.verbs,
          ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
          ...(r.categories && r.categories.length > 0 ? { categories: r.categories } : {}),
          ...(hash ? { storageVersionHash: hash } : {}),
        },
        // Subresources follow their resource with an empty singular name, as upstream lists `nodes/status`.
        ...(r.subresources ?? []).map((s) => ({ name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: s.verbs })),
      ];
    }),
  };
}

/**
 * APIGroupDiscoveryList for `/apis` (or `/api`, with one group named ''). `responseKind` keeps group and version
 * empty, as kube does: they default to the enclosing group version.
 */
export function aggregatedDiscovery(version: AggregatedVersion, groups: AggregatedGroup[]): object {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((g) => ({
      metadata: g.name ? { name: g.name } : {},
      versions: g.versions.map((v) => ({
        version: v.version,
        resources: v.resources.map((r) => ({
          resource: r.resource,
          responseKind: { group: '', version: '', kind: r.kind },
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: r.singular,
          verbs: r.verbs,
          ...(r.shortNames.length > 0 ? { shortNames: r.shortNames } : {}),
          ...(r.categories && r.categories.length > 0 ? { categories: r.categories } : {}),
          ...(r.subresources?.length
            ? { subresources: r.subresources.map((s) => ({ subresource: s.name, responseKind: { group: '', version: '', kind: s.kind }, verbs: s.verbs })) }
            : {}),
        })),
        freshness: 'Current',
      })),
    })),
  };
}

/** The Content-Type an aggregated discovery answer is served with. */
export function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

// Both spellings of the discovery group are accepted (team decision 2).
const DISCOVERY_GROUPS = new Set(['apidiscovery.k8s.io', 'apidiscovery.cluster.io']);

/**
 * Which aggregated discovery version the Accept header asks for, honouring the order of its media ranges
 * (client-go lists v2 before v2beta1) and skipping ranges with q=0. Undefined means a legacy answer.
 */
export function wantsAggregated(accept: string | undefined): AggregatedVersion | undefined {
  if (!accept) return undefined;
  for (const range of accept.split(',')) {
    const [mediaType = '', ...rawParams] = range.split(';').map((s) => s.trim());
    if (mediaType.toLowerCase() !== 'application/json') continue;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
    }
    if (params.get('q') !== undefined && Number(params.get('q')) === 0) continue;
    const v = params.get('v');
    if (DISCOVERY_GROUPS.has(params.get('g') ?? '') && params.get('as') === 'APIGroupDiscoveryList' && (v === 'v2' || v === 'v2beta1')) {
      return v;
    }
  }
  return undefined;
}
