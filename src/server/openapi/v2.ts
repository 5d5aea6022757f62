/**
 * OpenAPI v2 (Swagger 2.0) for all served resources, as JSON and as the gnostic `openapi_v2.Document` protobuf
 * that kubectl 1.27/1.28 require for create/apply validation.
 */
import { catalog } from './catalog.ts';
import type { OperationSpec, PathSpec } from './operations.ts';
import { refTo, renderDefinitions } from './schemas.ts';
import type { OpenAPIResource } from './types.ts';
import { OPENAPI_INFO } from './v3.ts';

export { encodeSwaggerDocument as swaggerV2Protobuf } from './gnostic.ts';

type Json = Record<string, unknown>;

function renderOperation(op: OperationSpec): Json {
  const parameters: Json[] = [];
  if (op.body) parameters.push({ name: 'body', in: 'body', ...(op.body.required ? { required: true } : {}), schema: { $ref: refTo('v2', op.body.definition) } });
  for (const q of op.query) parameters.push({ name: q.name, in: 'query', description: q.description, type: q.type, uniqueItems: true });
  const responses: Json = {};
  for (const r of op.responses) responses[r.code] = { description: r.description, schema: r.definition ? { $ref: refTo('v2', r.definition) } : { type: 'string' } };
  responses['401'] = { description: 'Unauthorized' };
  return {
    description: op.description,
    ...(op.body ? { consumes: op.body.contentTypes } : op.consumes ? { consumes: op.consumes } : {}),
    produces: op.produces,
    tags: [op.tag],
    operationId: op.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
    ...(op.action ? { 'x-kubernetes-action': op.action } : {}),
    ...(op.gvk ? { 'x-kubernetes-group-version-kind': { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version } } : {}),
  };
}

function renderPaths(paths: PathSpec[]): Json {
  return Object.fromEntries(
    paths.map((p) => {
      const item: Json = {};
      for (const op of p.operations) item[op.method] = renderOperation(op);
      if (p.pathParams.length > 0 || p.queryParams?.length) {
        item['parameters'] = [
          ...p.pathParams.map((pp) => ({ name: pp.name, in: 'path', description: pp.description, required: true, type: 'string', uniqueItems: true })),
          ...(p.queryParams ?? []).map((q) => ({ name: q.name, in: 'query', description: q.description, type: q.type, uniqueItems: true })),
        ];
      }
      return [p.path, item];
    }),
  );
}

/** The Swagger 2.0 document of every resource given (all group versions in one document, as `/openapi/v2`). */
export function swaggerV2(resources: OpenAPIResource[]): object {
  const c = catalog(resources);
  return {
    swagger: '2.0',
    info: OPENAPI_INFO,
    paths: renderPaths(c.paths),
    definitions: renderDefinitions(c.names, c.definitions, 'v2'),
  };
}
