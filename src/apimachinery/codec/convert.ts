/**
 * The schema walk shared by JSON bodies, YAML bodies and already-parsed values: keeps known fields in schema
 * order, drops empty ones (omitempty) but writes the always-emitted ones, normalizes times, and reports unknown
 * and repeated fields as sigs.k8s.io/json's strict mode does (`unknown field "metadata.foo"`, deduplicated,
 * at most 100). Type errors follow encoding/json: the first mismatch is kept and decoding goes on; a failure
 * inside a custom unmarshaler (Time, MicroTime) ends decoding at once.
 */
import {
  K_ANY, K_ARRAY, K_BOOL, K_INT32, K_INT64, K_MAP, K_MICRO, K_STRING, K_STRUCT, K_TIME,
  type FieldNode, type StructNode, type TypeNode,
} from './compile.ts';
import { type ExactSides, setOwn } from './jsonscan.ts';
import { parseMicroTime, parseTime, TimeParseError, ZERO_MICRO_TIME, ZERO_TIME } from './time.ts';

const MAX_PROBLEMS = 100;

/** Raised for a value Go could not decode; the message is the Go error text (no kind prefix). */
export class DecodeError extends Error {}

export interface WalkState {
  problems: string[];
  sides: ExactSides | null;
  /** The first saved type error (encoding/json keeps going after it). */
  typeError: string | null;
}

function addProblem(st: WalkState, p: string): void {
  if (st.problems.length < MAX_PROBLEMS && !st.problems.includes(p)) st.problems.push(p);
}

/** The JSON kind as Go's decoder names it in type errors. */
export function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

function typeError(st: WalkState, value: string, sn: StructNode, errPath: string, goType: string): undefined {
  if (st.typeError === null) st.typeError = `json: cannot unmarshal ${value} into Go struct field ${sn.goName}.${errPath} of type ${goType}`;
  return undefined;
}

const join = (path: string, name: string): string => (path === '' ? name : path + '.' + name);

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value an always-emitted field takes when empty (a fresh object each time; callers may mutate it). */
export function zeroValue(t: TypeNode): unknown {
  switch (t.k) {
    case K_STRING:
      return '';
    case K_INT32:
    case K_INT64:
      return 0;
    case K_BOOL:
      return false;
    case K_STRUCT: {
      const out: Record<string, unknown> = {};
      for (const f of t.struct!.fields) if (f.always) out[f.name] = zeroValue(f.t);
      return out;
    }
    case K_ARRAY:
      return [];
    case K_MAP:
      return {};
    default:
      return null; // Time, MicroTime, opaque JSON
  }
}

/**
 * Converts a struct value. `path` is the strict-error path (`a.b[0].c`), `errPath` the type-error field stack
 * (no indices). Returns the canonical object.
 */
export function walkStruct(sn: StructNode, raw: Record<string, unknown>, path: string, errPath: string, st: WalkState): Record<string, unknown> {
  const fields = sn.fields;
  const vals: unknown[] = new Array(fields.length);
  const order = st.sides === null ? undefined : st.sides.order.get(raw);
  if (order === undefined) {
    for (const k in raw) {
      const f = sn.byName.get(k);
      if (f === undefined) addProblem(st, `unknown field "${join(path, k)}"`);
      else vals[f.index] = walkField(f, raw[k], raw, sn, path, errPath, st);
    }
  } else {
    const seen = new Uint8Array(fields.length);
    for (const k of order) {
      const f = sn.byName.get(k);
      if (f === undefined) addProblem(st, `unknown field "${join(path, k)}"`);
      else if (seen[f.index]) addProblem(st, `duplicate field "${join(path, k)}"`);
      else {
        seen[f.index] = 1;
        vals[f.index] = walkField(f, raw[k], raw, sn, path, errPath, st);
      }
    }
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) {
    const v = vals[i];
    const f = fields[i]!;
    if (v !== undefined) out[f.name] = v;
    else if (f.always) out[f.name] = zeroValue(f.t);
  }
  return out;
}

/** Converts one field value; undefined means empty (omitted unless always-emitted). */
function walkField(f: FieldNode, v: unknown, parent: Record<string, unknown>, sn: StructNode, path: string, errPath: string, st: WalkState): unknown {
  if (v === null || v === undefined) return undefined;
  const t = f.t;
  switch (t.k) {
    case K_STRING:
      if (typeof v === 'string') return v === '' ? undefined : v;
      return typeError(st, jsonKind(v), sn, join(errPath, f.name), 'string');
    case K_INT32:
    case K_INT64: {
      if (typeof v !== 'number') return typeError(st, jsonKind(v), sn, join(errPath, f.name), t.goType);
      const lit = st.sides === null ? undefined : st.sides.numText.get(parent)?.get(f.name);
      const max = t.k === K_INT32 ? 2147483647 : 9223372036854775807;
      const bad = lit !== undefined ? !/^-?\d+$/.test(lit) || outOfRange(lit, t.k === K_INT32) : !Number.isInteger(v) || v > max || v < -max - 1;
      if (bad) return typeError(st, `number ${lit ?? String(v)}`, sn, join(errPath, f.name), t.goType);
      return v === 0 ? undefined : v;
    }
    case K_BOOL:
      if (typeof v === 'boolean') return v ? true : undefined;
      return typeError(st, jsonKind(v), sn, join(errPath, f.name), 'bool');
    case K_TIME:
    case K_MICRO:
      return walkTime(t.k, v, sn, join(errPath, f.name));
    case K_ANY:
      return v;
    case K_STRUCT:
      if (isObject(v)) return walkStruct(t.struct!, v, join(path, f.name), join(errPath, f.name), st);
      return typeError(st, jsonKind(v), sn, join(errPath, f.name), t.goType);
    case K_ARRAY:
      if (Array.isArray(v)) return v.length === 0 ? undefined : walkArray(t, v, sn, join(path, f.name), join(errPath, f.name), st);
      return typeError(st, jsonKind(v), sn, join(errPath, f.name), t.goType);
    case K_MAP:
      if (isObject(v)) return walkMap(t, v, sn, join(path, f.name), join(errPath, f.name), st);
      return typeError(st, jsonKind(v), sn, join(errPath, f.name), t.goType);
  }
  return undefined;
}

// Compares decimal integer literals against the int32/int64 bounds without losing precision.
function outOfRange(lit: string, is32: boolean): boolean {
  const neg = lit[0] === '-';
  const digits = (neg ? lit.slice(1) : lit).replace(/^0+(?=\d)/, '');
  const bound = is32 ? (neg ? '2147483648' : '2147483647') : neg ? '9223372036854775808' : '9223372036854775807';
  return digits.length !== bound.length ? digits.length > bound.length : digits > bound;
}

function walkTime(k: number, v: unknown, sn: StructNode, errPath: string): string | undefined {
  if (typeof v !== 'string') {
    // The nested json.Unmarshal into a string fails and ends decoding, with the outer field as context.
    throw new DecodeError(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${sn.goName}.${errPath} of type string`);
  }
  try {
    const s = k === K_MICRO ? parseMicroTime(v) : parseTime(v);
    return s === ZERO_MICRO_TIME || s === ZERO_TIME ? undefined : s;
  } catch (e) {
    if (e instanceof TimeParseError) throw new DecodeError(e.message);
    throw e;
  }
}

function walkArray(t: TypeNode, v: unknown[], sn: StructNode, path: string, errPath: string, st: WalkState): unknown[] {
  const et = t.elem!;
  const out = new Array<unknown>(v.length);
  for (let i = 0; i < v.length; i++) {
    const e = v[i];
    // null elements decode to the element's zero value, not to a hole.
    if (e === null) out[i] = zeroValue(et);
    else if (et.k === K_STRUCT) {
      if (isObject(e)) out[i] = walkStruct(et.struct!, e, `${path}[${i}]`, errPath, st);
      else {
        typeError(st, jsonKind(e), sn, errPath, et.goType);
        out[i] = zeroValue(et);
      }
    } else out[i] = walkScalar(et, e, sn, errPath, st);
  }
  return out;
}

function walkMap(t: TypeNode, v: Record<string, unknown>, sn: StructNode, path: string, errPath: string, st: WalkState): Record<string, unknown> | undefined {
  const et = t.elem!;
  const order = st.sides === null ? undefined : st.sides.order.get(v);
  const keys = order ?? Object.keys(v);
  if (keys.length === 0) return undefined;
  const sorted = order === undefined ? keys.slice().sort() : [...new Set(keys)].sort();
  if (order !== undefined) {
    const seen = new Set<string>();
    for (const k of order) {
      if (seen.has(k)) addProblem(st, `duplicate field "${join(path, k)}"`);
      seen.add(k);
    }
  }
  const out: Record<string, unknown> = {};
  for (const k of sorted) {
    const e = v[k];
    setOwn(out, k, e === null ? zeroValue(et) : walkScalar(et, e, sn, errPath, st));
  }
  return out;
}

// Array and map elements: strings (the only scalar element type in our schemas) and opaque JSON.
function walkScalar(et: TypeNode, e: unknown, sn: StructNode, errPath: string, st: WalkState): unknown {
  if (et.k === K_ANY) return e;
  if (et.k === K_STRING) {
    if (typeof e === 'string') return e;
    typeError(st, jsonKind(e), sn, errPath, 'string');
    return '';
  }
  if (et.k === K_BOOL) {
    if (typeof e === 'boolean') return e;
    typeError(st, jsonKind(e), sn, errPath, 'bool');
    return false;
  }
  if (et.k === K_INT32 || et.k === K_INT64) {
    if (typeof e === 'number' && Number.isInteger(e)) return e;
    typeError(st, typeof e === 'number' ? `number ${e}` : jsonKind(e), sn, errPath, et.goType);
    return 0;
  }
  if (et.k === K_TIME || et.k === K_MICRO) return walkTime(et.k, e, sn, errPath) ?? null;
  if (isObject(e) && et.k === K_MAP) return walkMap(et, e, sn, errPath, errPath, st) ?? {};
  if (Array.isArray(e) && et.k === K_ARRAY) return walkArray(et, e, sn, errPath, errPath, st);
  typeError(st, jsonKind(e), sn, errPath, et.goType);
  return zeroValue(et);
}
