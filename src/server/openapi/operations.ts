/**
 * The REST endpoints of a resource, described once and rendered by both the v2 and the v3 writers: paths, their
 * operations, query parameters (per the spec's applicability table), bodies and responses.
 */
import { PATCH_MEDIA_TYPES } from '../negotiation.ts';
import type { APIResourceInfo } from '../../registry/rest/resource-info.ts';
import { API_RESOURCE_LIST, DELETE_OPTIONS, PATCH, STATUS, WATCH_EVENT } from './meta-definitions.ts';

/** C create, P patch, U replace, D delete, DC delete collection, R read, L list, W watch (the spec's letters). */
type Kind = 'C' | 'P' | 'U' | 'D' | 'DC' | 'R' | 'L' | 'W';

export interface QueryParam {
  name: string;
  type: 'string' | 'boolean' | 'integer';
  description: string;
}

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';
  operationId: string;
  description: string;
  tag: string;
  /** x-kubernetes-action; absent on the discovery operation. */
  action?: string;
  gvk?: { group: string; version: string; kind: string };
  query: QueryParam[];
  body?: { definition: string; contentTypes: string[]; required: boolean };
  /** What a connect operation takes without a body parameter: any media type. */
  consumes?: string[];
  /** `definition` '' is a plain string schema (a connect operation's answer). */
  responses: { code: string; description: string; definition: string }[];
  produces: string[];
}

export interface PathSpec {
  path: string;
  pathParams: { name: string; description: string }[];
  /** Query parameters of every operation of the path, listed once at path level (a connect path's `path`). */
  queryParams?: QueryParam[];
  operations: OperationSpec[];
}

const ALL: Kind[] = ['C', 'P', 'U', 'D', 'DC', 'R', 'L', 'W'];
const SELECTING: Kind[] = ['DC', 'L', 'W'];
const PARAMS: (QueryParam & { applies: Kind[] })[] = [
  { name: 'pretty', type: 'string', applies: ALL, description: "If 'true', the output is pretty printed." },
  { name: 'dryRun', type: 'string', applies: ['C', 'P', 'U', 'D', 'DC'], description: 'When present, modifications are not persisted. Valid value: All.' },
  { name: 'fieldManager', type: 'string', applies: ['C', 'P', 'U'], description: 'Name of the actor making the change; at most 128 printable characters. Required for apply patches.' },
  { name: 'fieldValidation', type: 'string', applies: ['C', 'P', 'U'], description: 'How unknown or duplicate fields are handled: Ignore, Warn (default) or Strict.' },
  { name: 'force', type: 'boolean', applies: ['P'], description: 'Forces an apply: the caller takes over fields owned by other managers. Must be unset for other patches.' },
  { name: 'gracePeriodSeconds', type: 'integer', applies: ['D', 'DC'], description: 'Seconds before deletion; 0 deletes immediately.' },
  { name: 'ignoreStoreReadErrorWithClusterBreakingPotential', type: 'boolean', applies: ['D', 'DC'], description: 'Deletes objects that cannot be read from storage, skipping finalizers and preconditions.' },
  { name: 'orphanDependents', type: 'boolean', applies: ['D', 'DC'], description: 'Deprecated; use propagationPolicy. Only one of the two may be set.' },
  { name: 'propagationPolicy', type: 'string', applies: ['D', 'DC'], description: 'Garbage collection policy: Orphan, Background or Foreground.' },
  { name: 'allowWatchBookmarks', type: 'boolean', applies: ['L', 'W'], description: 'Asks for BOOKMARK watch events; the server may ignore it.' },
  { name: 'continue', type: 'string', applies: SELECTING, description: 'Token from a previous page, to get the next one. Not supported with watch.' },
  { name: 'fieldSelector', type: 'string', applies: SELECTING, description: 'Restricts the result by fields. Default: everything.' },
  { name: 'labelSelector', type: 'string', applies: SELECTING, description: 'Restricts the result by labels. Default: everything.' },
  { name: 'limit', type: 'integer', applies: SELECTING, description: 'Maximum number of items to return; more items are signalled by a continue token.' },
  { name: 'resourceVersion', type: 'string', applies: SELECTING, description: 'Constrains which resource versions the request may be served from.' },
  { name: 'resourceVersionMatch', type: 'string', applies: SELECTING, description: 'How resourceVersion applies to a list: Exact or NotOlderThan.' },
  { name: 'sendInitialEvents', type: 'boolean', applies: SELECTING, description: 'With watch, starts the stream with the current objects and a bookmark marking their end.' },
  { name: 'shardSelector', type: 'string', applies: SELECTING, description: 'Alpha. Selects a shard of the objects by hash range of uid or namespace.' },
  { name: 'timeoutSeconds', type: 'integer', applies: SELECTING, description: 'Timeout of the call, regardless of activity.' },
  { name: 'watch', type: 'boolean', applies: ['L', 'W'], description: 'Streams add, update and remove notifications instead of a list.' },
];

const queryFor = (kind: Kind): QueryParam[] =>
  PARAMS.filter((p) => p.applies.includes(kind)).map(({ name, type, description }) => ({ name, type, description }));

const JSON_YAML = ['application/json', 'application/yaml'];
const STREAM = 'application/json;stream=watch';
/** The PATCH body types the handler accepts, as OpenAPI lists them. */
export const PATCH_TYPES: string[] = [...PATCH_MEDIA_TYPES];

/** Operation id infix, as kube builds it: `events.cluster.io`/v1 → `EventsV1`, core → `CoreV1`. */
function groupVersionName(group: string, version: string): string {
  const short = group === '' ? 'core' : group.replace(/\.(k8s|cluster)\.io$/, '');
  const camel = short.split(/[.-]/).map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join('');
  return camel + version.charAt(0).toUpperCase() + version.slice(1);
}

function tagOf(group: string, version: string): string {
  const name = groupVersionName(group, version);
  return `${name.charAt(0).toLowerCase()}${name.slice(1, name.length - version.length)}_${version}`;
}

export function groupVersionPrefix(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** The `GET <prefix>/` discovery endpoint of a group version. */
export function apiResourcesPath(group: string, version: string): PathSpec {
  return {
    path: `${groupVersionPrefix(group, version)}/`,
    pathParams: [],
    operations: [
      {
        method: 'get',
        operationId: `get${groupVersionName(group, version)}APIResources`,
        description: 'get the resources of this group version',
        tag: tagOf(group, version),
        query: [],
        responses: [{ code: '200', description: 'OK', definition: API_RESOURCE_LIST }],
        produces: JSON_YAML,
      },
    ],
  };
}

const NAMESPACE_PARAM = { name: 'namespace', description: 'Object name and auth scope, such as for teams and projects.' };

/** Every endpoint of one resource, limited to its verbs. */
export function resourcePaths(info: APIResourceInfo, definition: string, listDefinition: string): PathSpec[] {
  const { group, version, kind, resource, namespaced } = info;
  const gvName = groupVersionName(group, version);
  const scoped = namespaced ? 'Namespaced' : '';
  const gvk = { group, version, kind };
  const has = (verb: string) => info.verbs.includes(verb);
  const op: Op = (method, id, action, k, description, responses, produces, body) => ({
    method,
    operationId: id,
    description,
    tag: tagOf(group, version),
    action,
    gvk,
    query: queryFor(k),
    ...(body ? { body } : {}),
    responses,
    produces,
  });
  const ok = (def: string, ...extra: [string, string][]) => [
    { code: '200', description: 'OK', definition: def },
    ...extra.map(([code, description]) => ({ code, description, definition: def })),
  ];
  const objectBody = { definition, contentTypes: JSON_YAML, required: true };
  const deleteBody = { definition: DELETE_OPTIONS, contentTypes: ['application/json'], required: false };
  const prefix = groupVersionPrefix(group, version);
  const base = namespaced ? `${prefix}/namespaces/{namespace}/${resource}` : `${prefix}/${resource}`;
  const baseParams = namespaced ? [NAMESPACE_PARAM] : [];
  const nameParam = { name: 'name', description: `Name of the ${kind}.` };
  const paths: PathSpec[] = [];

  if (namespaced && has('list')) {
    paths.push({
      path: `${prefix}/${resource}`,
      pathParams: [],
      operations: [op('get', `list${gvName}${kind}ForAllNamespaces`, 'list', 'L', `list or watch ${kind} objects in all namespaces`, ok(listDefinition), [...JSON_YAML, STREAM])],
    });
  }
  const collection: OperationSpec[] = [];
  if (has('deletecollection'))
    collection.push(op('delete', `delete${gvName}Collection${scoped}${kind}`, 'deletecollection', 'DC', `delete a collection of ${kind} objects`, ok(STATUS), JSON_YAML, deleteBody));
  if (has('list')) collection.push(op('get', `list${gvName}${scoped}${kind}`, 'list', 'L', `list or watch ${kind} objects`, ok(listDefinition), [...JSON_YAML, STREAM]));
  if (has('create'))
    collection.push(op('post', `create${gvName}${scoped}${kind}`, 'post', 'C', `create a ${kind}`, ok(definition, ['201', 'Created'], ['202', 'Accepted']), JSON_YAML, objectBody));
  if (collection.length > 0) paths.push({ path: base, pathParams: baseParams, operations: collection });

  const item: OperationSpec[] = [];
  if (has('delete'))
    item.push(op('delete', `delete${gvName}${scoped}${kind}`, 'delete', 'D', `delete a ${kind}`, ok(STATUS, ['202', 'Accepted']), JSON_YAML, deleteBody));
  if (has('get')) item.push(op('get', `read${gvName}${scoped}${kind}`, 'get', 'R', `read the named ${kind}`, ok(definition), JSON_YAML));
  if (has('patch'))
    item.push(
      op('patch', `patch${gvName}${scoped}${kind}`, 'patch', 'P', `partially update the named ${kind}`, ok(definition, ['201', 'Created']), JSON_YAML, {
        definition: PATCH,
        contentTypes: PATCH_TYPES,
        required: true,
      }),
    );
  if (has('update')) item.push(op('put', `replace${gvName}${scoped}${kind}`, 'put', 'U', `replace the named ${kind}`, ok(definition, ['201', 'Created']), JSON_YAML, objectBody));
  if (item.length > 0) paths.push({ path: `${base}/{name}`, pathParams: [...baseParams, nameParam], operations: item });

  if (has('watch')) {
    const watchProduces = ['application/json', STREAM];
    const deprecated = "deprecated: use the 'watch' parameter with a list operation instead";
    if (namespaced) {
      paths.push({
        path: `${prefix}/watch/${resource}`,
        pathParams: [],
        operations: [op('get', `watch${gvName}${kind}ListForAllNamespaces`, 'watchlist', 'W', `watch changes to ${kind} objects in all namespaces; ${deprecated}`, ok(WATCH_EVENT), watchProduces)],
      });
    }
    const watchBase = namespaced ? `${prefix}/watch/namespaces/{namespace}/${resource}` : `${prefix}/watch/${resource}`;
    paths.push({
      path: watchBase,
      pathParams: baseParams,
      operations: [op('get', `watch${gvName}${scoped}${kind}List`, 'watchlist', 'W', `watch changes to a list of ${kind} objects; ${deprecated}`, ok(WATCH_EVENT), watchProduces)],
    });
    paths.push({
      path: `${watchBase}/{name}`,
      pathParams: [...baseParams, nameParam],
      operations: [op('get', `watch${gvName}${scoped}${kind}`, 'watch', 'W', `watch changes to the named ${kind}; ${deprecated}, filtered by fieldSelector`, ok(WATCH_EVENT), watchProduces)],
    });
  }
  for (const sub of info.subresources ?? []) paths.push(...subresourcePaths(info, sub, { base, baseParams, gvName, scoped, definition, op, ok, objectBody }));
  return paths;
}

type Op = (
  method: OperationSpec['method'],
  id: string,
  action: string,
  k: Kind,
  description: string,
  responses: OperationSpec['responses'],
  produces: string[],
  body?: OperationSpec['body'],
) => OperationSpec;

/** Upstream's connect methods, as its OpenAPI lists them for a connect subresource (`nodes/proxy`). */
const CONNECT_METHODS = ['delete', 'get', 'head', 'options', 'patch', 'post', 'put'] as const;

/**
 * A subresource's paths as upstream's installer writes them: `status` with read, patch and replace of the parent
 * kind; a connect subresource (its kind an `…Options`, e.g. NodeProxyOptions) with every connect method, at
 * `{name}/<sub>` and `{name}/<sub>/{path}`, answering any media type as a string.
 */
function subresourcePaths(
  info: APIResourceInfo,
  sub: { name: string; kind: string; verbs: string[] },
  c: { base: string; baseParams: { name: string; description: string }[]; gvName: string; scoped: string; definition: string; op: Op; ok: (def: string, ...extra: [string, string][]) => OperationSpec['responses']; objectBody: NonNullable<OperationSpec['body']> },
): PathSpec[] {
  const { kind, group, version } = info;
  const upper = sub.name.charAt(0).toUpperCase() + sub.name.slice(1);
  if (sub.kind.endsWith('Options')) {
    const connectOps = (withPath: boolean): OperationSpec[] =>
      CONNECT_METHODS.map((m) => {
        const verb = m.charAt(0).toUpperCase() + m.slice(1);
        return {
          method: m,
          operationId: `connect${c.gvName}${verb}${c.scoped}${kind}${upper}${withPath ? 'WithPath' : ''}`,
          description: `connect ${m.toUpperCase()} requests to ${sub.name} of ${kind}`,
          tag: tagOf(group, version),
          action: 'connect',
          gvk: { group, version, kind: sub.kind },
          query: [],
          consumes: ['*/*'],
          responses: [{ code: '200', description: 'OK', definition: '' }],
          produces: ['*/*'],
        };
      });
    const pathQuery: QueryParam[] = [{ name: 'path', type: 'string', description: `Path is the URL path to use for the current ${sub.name} request to ${kind.toLowerCase()}.` }];
    const nameParam = { name: 'name', description: `name of the ${sub.kind}` };
    return [
      { path: `${c.base}/{name}/${sub.name}`, pathParams: [...c.baseParams, nameParam], queryParams: pathQuery, operations: connectOps(false) },
      {
        path: `${c.base}/{name}/${sub.name}/{path}`,
        pathParams: [...c.baseParams, nameParam, { name: 'path', description: 'path to the resource' }],
        queryParams: pathQuery,
        operations: connectOps(true),
      },
    ];
  }
  const has = (v: string) => sub.verbs.includes(v);
  const ops: OperationSpec[] = [];
  const id = (verb: string) => `${verb}${c.gvName}${c.scoped}${kind}${upper}`;
  if (has('get')) ops.push(c.op('get', id('read'), 'get', 'R', `read ${sub.name} of the specified ${kind}`, c.ok(c.definition), JSON_YAML));
  if (has('patch'))
    ops.push(
      c.op('patch', id('patch'), 'patch', 'P', `partially update ${sub.name} of the specified ${kind}`, c.ok(c.definition, ['201', 'Created']), JSON_YAML, { definition: PATCH, contentTypes: PATCH_TYPES, required: true }),
    );
  if (has('update')) ops.push(c.op('put', id('replace'), 'put', 'U', `replace ${sub.name} of the specified ${kind}`, c.ok(c.definition, ['201', 'Created']), JSON_YAML, c.objectBody));
  return ops.length ? [{ path: `${c.base}/{name}/${sub.name}`, pathParams: [...c.baseParams, { name: 'name', description: `name of the ${kind}` }], operations: ops }] : [];
}

/** Definitions every group version document needs besides its resources' own. */
export const OPERATION_DEFINITIONS = [STATUS, DELETE_OPTIONS, PATCH, WATCH_EVENT, API_RESOURCE_LIST];
