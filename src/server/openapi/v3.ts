/**
 * OpenAPI v3: the `/openapi/v3` index and one document per group version (what kubectl 1.29+ reads for explain,
 * field validation support and the client-side apply patch type).
 */
import { catalog } from './catalog.ts';
import type { OperationSpec, PathSpec } from './operations.ts';
import { refTo, renderDefinitions } from './schemas.ts';
import type { OpenAPIResource } from './types.ts';

export type { OpenAPIResource } from './types.ts';

type Json = Record<string, unknown>;

export const OPENAPI_INFO = { title: 'core-apiserver', version: 'unversioned' };

/** `/openapi/v3`: where each group version document lives, by path (`apis/<g>/<v>` or `api/v1`, no leading slash). */
export function openAPIV3Index(groupVersions: { path: string; hash: string }[]): object {
  return {
    paths: Object.fromEntries(groupVersions.map((gv) => [gv.path, { serverRelativeURL: `/openapi/v3/${gv.path}?hash=${gv.hash}` }])),
  };
}

/** `definition` '' is a plain string (a connect operation's answer). */
const content = (types: string[], definition: string): Json =>
  Object.fromEntries(types.map((t) => [t, { schema: definition ? { $ref: refTo('v3', definition) } : { type: 'string' } }]));

function renderOperation(op: OperationSpec): Json {
  const responses: Json = {};
  for (const r of op.responses) responses[r.code] = { description: r.description, content: content(op.produces, r.definition) };
  responses['401'] = { description: 'Unauthorized' };
  return {
    description: op.description,
    operationId: op.operationId,
    tags: [op.tag],
    ...(op.query.length > 0
      ? { parameters: op.query.map((q) => ({ name: q.name, in: 'query', description: q.description, schema: { type: q.type } })) }
      : {}),
    ...(op.body ? { requestBody: { content: content(op.body.contentTypes, op.body.definition), ...(op.body.required ? { required: true } : {}) } } : {}),
    responses,
    ...(op.action ? { 'x-kubernetes-action': op.action } : {}),
    ...(op.gvk ? { 'x-kubernetes-group-version-kind': { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version } } : {}),
  };
}

export function renderPathsV3(paths: PathSpec[]): Json {
  return Object.fromEntries(
    paths.map((p) => {
      const item: Json = {};
      if (p.pathParams.length > 0 || p.queryParams?.length) {
        item['parameters'] = [
          ...p.pathParams.map((pp) => ({ name: pp.name, in: 'path', description: pp.description, required: true, schema: { type: 'string' } })),
          ...(p.queryParams ?? []).map((q) => ({ name: q.name, in: 'query', description: q.description, schema: { type: q.type } })),
        ];
      }
      for (const op of p.operations) item[op.method] = renderOperation(op);
      return [p.path, item];
    }),
  );
}

/**
 * The document of one group version (`events.cluster.io/v1`, or `v1` for the core group): the paths of the
 * resources in it and, under components.schemas, every definition they reach.
 */
export function openAPIV3Document(groupVersion: string, resources: OpenAPIResource[]): object {
  const mine = resources.filter((r) => (r.info.group ? `${r.info.group}/${r.info.version}` : r.info.version) === groupVersion);
  const c = catalog(mine);
  return {
    openapi: '3.0.0',
    info: OPENAPI_INFO,
    paths: renderPathsV3(c.paths),
    components: { schemas: renderDefinitions(c.names, c.definitions, 'v3') },
  };
}
