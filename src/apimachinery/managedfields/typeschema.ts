/**
 * The server-side-apply view of a schema (structured-merge-diff `schema.Atom`), derived from our schema language:
 * scalars (strings, numbers, bools, timestamps, opaque JSON), maps (structs with declared fields, or string-keyed
 * maps), each granular or atomic, and lists (atomic, sets, or map-lists keyed by `listMapKeys`).
 */
import type { Definitions, Schema } from '../schema.ts';

export interface ScalarNode {
  kind: 'scalar';
  /** Timestamps are normalized in apply configs so that equal instants compare equal. */
  time?: 'date-time' | 'micro-time';
}

export interface MapNode {
  kind: 'map';
  /** Declared struct fields; null for a plain map (labels, annotations). */
  fields: Map<string, TypeNode> | null;
  /** Value type of a plain map. */
  elem: TypeNode | null;
  atomic: boolean;
}

export interface ListNode {
  kind: 'list';
  elem: TypeNode;
  /** false: atomic list, replaced whole. true: a set (no keys) or a map-list (keys). */
  associative: boolean;
  keys: string[];
}

export type TypeNode = ScalarNode | MapNode | ListNode;

const SCALAR: ScalarNode = { kind: 'scalar' };

/** Builds (and memoizes per Definitions) the type tree rooted at definition `root`. */
export function typeOf(defs: Definitions, root: string): MapNode {
  let memo = cache.get(defs);
  if (memo === undefined) {
    memo = new Map();
    cache.set(defs, memo);
  }
  const node = defNode(defs, root, memo);
  if (node.kind !== 'map') throw new Error(`definition ${root} is not an object`);
  return node;
}

const cache = new WeakMap<Definitions, Map<string, TypeNode>>();

function defNode(defs: Definitions, name: string, memo: Map<string, TypeNode>): TypeNode {
  const known = memo.get(name);
  if (known !== undefined) return known;
  const def = defs.get(name);
  if (def === undefined) throw new Error(`unknown definition ${name}`);
  if (def.stringFormat !== undefined) {
    const n: ScalarNode = { kind: 'scalar', time: def.stringFormat };
    memo.set(name, n);
    return n;
  }
  if (def.properties.length === 0) {
    // FieldsV1 and the like: opaque JSON, owned as one leaf.
    memo.set(name, SCALAR);
    return SCALAR;
  }
  const fields = new Map<string, TypeNode>();
  const n: MapNode = { kind: 'map', fields, elem: null, atomic: def.structType === 'atomic' };
  memo.set(name, n); // before the fields: definitions may refer to themselves
  for (const p of def.properties) fields.set(p.name, schemaNode(defs, p.schema, memo));
  return n;
}

function schemaNode(defs: Definitions, s: Schema, memo: Map<string, TypeNode>): TypeNode {
  switch (s.type) {
    case 'string':
      return s.format === 'date-time' || s.format === 'micro-time' ? { kind: 'scalar', time: s.format } : SCALAR;
    case 'integer':
    case 'boolean':
    case 'any-object':
      return SCALAR;
    case 'ref':
      return defNode(defs, s.ref, memo);
    case 'map':
      return { kind: 'map', fields: null, elem: schemaNode(defs, s.values, memo), atomic: s.mapType === 'atomic' };
    case 'array': {
      const elem = schemaNode(defs, s.items, memo);
      if (s.listType === 'set') return { kind: 'list', elem, associative: true, keys: [] };
      if (s.listType === 'map') return { kind: 'list', elem, associative: true, keys: s.listMapKeys ?? [] };
      return { kind: 'list', elem, associative: false, keys: [] }; // unmarked lists are atomic, as upstream
    }
  }
}

/** The type of field/key `name` inside map node `t` (null: undeclared, treated as an opaque leaf). */
export function fieldType(t: MapNode, name: string): TypeNode | null {
  if (t.fields !== null) return t.fields.get(name) ?? null;
  return t.elem;
}

export const OPAQUE: TypeNode = SCALAR;
