/**
 * Definitions compiled once into a walkable tree (numeric kinds, name → field maps, Go type names for error
 * texts), so the per-request decode/encode loops do no string lookups into the raw schema language.
 */
import type { Definition, Definitions, Schema } from '../schema.ts';

export const K_STRING = 0;
export const K_INT32 = 1;
export const K_INT64 = 2;
export const K_BOOL = 3;
export const K_STRUCT = 4;
export const K_TIME = 5;
export const K_MICRO = 6;
export const K_ANY = 7;
export const K_ARRAY = 8;
export const K_MAP = 9;

export interface TypeNode {
  k: number;
  /** A Go pointer to a number: omitempty leaves out only nil, so 0 is written. */
  keepZero?: boolean;
  /** Go type text as `json: cannot unmarshal … of type <goType>` prints it. */
  goType: string;
  struct: StructNode | null;
  elem: TypeNode | null;
}

export interface FieldNode {
  name: string;
  index: number;
  t: TypeNode;
  /** Written even when empty: `alwaysEmit`, or `required` (a Go field without omitempty). */
  always: boolean;
}

export interface StructNode {
  /** Go struct name (last segment of the definition name), used in `Go struct field <name>.<path>`. */
  goName: string;
  fields: FieldNode[];
  byName: Map<string, FieldNode>;
  /** Root type meta for error prefixes: `<kind> in version "<version>" cannot be handled as a <kind>`. */
  kind: string;
  version: string;
}

const cache = new WeakMap<Definitions, Map<string, StructNode>>();

const STRING_NODE: TypeNode = { k: K_STRING, goType: 'string', struct: null, elem: null };
const BOOL_NODE: TypeNode = { k: K_BOOL, goType: 'bool', struct: null, elem: null };
const INT32_NODE: TypeNode = { k: K_INT32, goType: 'int32', struct: null, elem: null };
const INT64_NODE: TypeNode = { k: K_INT64, goType: 'int64', struct: null, elem: null };
const INT64_POINTER_NODE: TypeNode = { k: K_INT64, goType: 'int64', struct: null, elem: null, keepZero: true };
// Time and MicroTime unmarshal through a nested json.Unmarshal into a string, so type errors name `string`.
const TIME_NODE: TypeNode = { k: K_TIME, goType: 'string', struct: null, elem: null };
const MICRO_NODE: TypeNode = { k: K_MICRO, goType: 'string', struct: null, elem: null };
const ANY_NODE: TypeNode = { k: K_ANY, goType: 'interface {}', struct: null, elem: null };

function lastSegment(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? name : name.slice(i + 1);
}

/** The compiled struct for `name`; throws if the definition is missing (a programming error). */
export function compiledStruct(defs: Definitions, name: string): StructNode {
  let m = cache.get(defs);
  if (!m) {
    m = new Map();
    cache.set(defs, m);
  }
  const hit = m.get(name);
  if (hit) return hit;
  const def = defs.get(name);
  if (!def) throw new Error(`codec: no definition ${name}`);
  return compileStruct(defs, def, m);
}

function compileStruct(defs: Definitions, def: Definition, m: Map<string, StructNode>): StructNode {
  const segs = def.name.split('.');
  const gvk = def.gvk?.[0];
  const node: StructNode = {
    goName: lastSegment(def.name),
    fields: [],
    byName: new Map(),
    kind: gvk ? gvk.kind : lastSegment(def.name),
    version: gvk ? gvk.version : segs.length > 1 ? segs[segs.length - 2]! : '',
  };
  // Registered before the fields so a self-referencing definition terminates.
  m.set(def.name, node);
  const required = new Set(def.required ?? []);
  def.properties.forEach((p, index) => {
    const f: FieldNode = { name: p.name, index, t: compileType(defs, p.schema, m), always: !!p.alwaysEmit || required.has(p.name) };
    node.fields.push(f);
    node.byName.set(p.name, f);
  });
  return node;
}

function compileType(defs: Definitions, s: Schema, m: Map<string, StructNode>): TypeNode {
  switch (s.type) {
    case 'string':
      if (s.format === 'date-time') return TIME_NODE;
      if (s.format === 'micro-time') return MICRO_NODE;
      return STRING_NODE;
    case 'boolean':
      return BOOL_NODE;
    case 'integer':
      return s.format === 'int32' ? INT32_NODE : s.pointer ? INT64_POINTER_NODE : INT64_NODE;
    case 'any-object':
      return ANY_NODE;
    case 'array': {
      const elem = compileType(defs, s.items, m);
      return { k: K_ARRAY, goType: `[]${elem.goType}`, struct: null, elem };
    }
    case 'map': {
      const elem = compileType(defs, s.values, m);
      return { k: K_MAP, goType: `map[string]${elem.goType}`, struct: null, elem };
    }
    case 'ref': {
      const def = defs.get(s.ref);
      if (!def) throw new Error(`codec: no definition ${s.ref}`);
      if (def.stringFormat === 'date-time') return TIME_NODE;
      if (def.stringFormat === 'micro-time') return MICRO_NODE;
      // A definition without properties (FieldsV1) is opaque JSON kept verbatim, as its Go UnmarshalJSON does.
      if (def.properties.length === 0) return ANY_NODE;
      const struct = m.get(def.name) ?? compileStruct(defs, def, m);
      return { k: K_STRUCT, goType: `v1.${struct.goName}`, struct, elem: null };
    }
  }
}
