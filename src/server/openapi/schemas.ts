/**
 * Renders schema-language Definitions as OpenAPI schema objects. v2 and v3 differ only in where `$ref` points
 * (`#/definitions/` vs `#/components/schemas/`).
 */
import type { Definition, Definitions, Schema } from '../../apimachinery/schema.ts';

export type Dialect = 'v2' | 'v3';

type Json = Record<string, unknown>;

export function refTo(dialect: Dialect, name: string): string {
  return dialect === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}`;
}

const withDescription = (description: string | undefined): Json => (description ? { description } : {});

/** One property or item schema. MicroTime is a `date-time` string on the wire, like Time. */
export function renderSchema(s: Schema, dialect: Dialect): Json {
  switch (s.type) {
    case 'string':
      return {
        ...withDescription(s.description),
        type: 'string',
        ...(s.format ? { format: s.format === 'micro-time' ? 'date-time' : s.format } : {}),
        ...(s.enum ? { enum: s.enum } : {}),
      };
    case 'integer':
      return { ...withDescription(s.description), type: 'integer', format: s.format };
    case 'boolean':
      return { ...withDescription(s.description), type: 'boolean' };
    case 'ref':
      return { $ref: refTo(dialect, s.ref), ...withDescription(s.description) };
    case 'array':
      return {
        ...withDescription(s.description),
        type: 'array',
        items: renderSchema(s.items, dialect),
        ...(s.listType ? { 'x-kubernetes-list-type': s.listType } : {}),
        ...(s.listMapKeys ? { 'x-kubernetes-list-map-keys': s.listMapKeys } : {}),
        ...(s.patchStrategy ? { 'x-kubernetes-patch-strategy': s.patchStrategy } : {}),
        ...(s.patchMergeKey ? { 'x-kubernetes-patch-merge-key': s.patchMergeKey } : {}),
      };
    case 'map':
      return {
        ...withDescription(s.description),
        type: 'object',
        additionalProperties: renderSchema(s.values, dialect),
        ...(s.mapType ? { 'x-kubernetes-map-type': s.mapType } : {}),
      };
    case 'any-object':
      return { ...withDescription(s.description), type: 'object' };
  }
}

/** A named definition: a `date-time` string (Time, MicroTime), a free-form object (FieldsV1, Patch) or a struct. */
export function renderDefinition(d: Definition, dialect: Dialect): Json {
  if (d.stringFormat) return { description: d.description, type: 'string', format: 'date-time' };
  if (d.properties.length === 0) return { description: d.description, type: 'object' };
  return {
    description: d.description,
    type: 'object',
    properties: Object.fromEntries(d.properties.map((p) => [p.name, renderSchema(p.schema, dialect)])),
    ...(d.required && d.required.length > 0 ? { required: d.required } : {}),
    ...(d.gvk ? { 'x-kubernetes-group-version-kind': d.gvk.map((g) => ({ group: g.group, kind: g.kind, version: g.version })) } : {}),
    ...(d.structType ? { 'x-kubernetes-map-type': d.structType } : {}),
  };
}

function refsOf(s: Schema, out: string[]): void {
  if (s.type === 'ref') out.push(s.ref);
  else if (s.type === 'array') refsOf(s.items, out);
  else if (s.type === 'map') refsOf(s.values, out);
}

/**
 * The names of `roots` and every definition they reach, in discovery order. Throws when a reference cannot be
 * resolved: a document with a dangling `$ref` makes kubectl reject the whole document.
 */
export function reachableDefinitions(roots: string[], defs: Definitions): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    const d = defs.get(name);
    if (!d) throw new Error(`OpenAPI: definition ${name} is referenced but not defined`);
    seen.add(name);
    const refs: string[] = [];
    for (const p of d.properties) refsOf(p.schema, refs);
    queue.push(...refs);
  }
  return [...seen];
}

/** Renders the named definitions, sorted by name like kube's documents. */
export function renderDefinitions(names: string[], defs: Definitions, dialect: Dialect): Json {
  return Object.fromEntries([...names].sort().map((n) => [n, renderDefinition(defs.get(n)!, dialect)]));
}
