/**
 * Decoding a configuration file's JSON-like value into typed fields the way kube's strict config decoder does
 * (sigs.k8s.io/json under apimachinery's serializer): a value of the wrong JSON type is Go's `json: cannot unmarshal
 * …` error and wins over everything else; unknown fields are collected with their full path (`jwt[0].issuer.foo`)
 * and reported together as `strict decoding error: unknown field "…", …`. `null` leaves a field at its zero value,
 * as Go does.
 */
import { goQuote } from '../util/goquote.ts';

/** The shape of a field: what JSON type it takes and, for objects, their own fields. */
export type FieldSchema =
  | { readonly kind: 'string' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'list'; readonly of: FieldSchema }
  | StructSchema;

export interface StructSchema {
  readonly kind: 'struct';
  /** The Go type's name, which Go's type errors print (`Go struct field Issuer.jwt.issuer.url`). */
  readonly goName: string;
  readonly fields: Readonly<Record<string, FieldSchema>>;
}

export const STRING: FieldSchema = { kind: 'string' };
export const BOOL: FieldSchema = { kind: 'bool' };
export const listOf = (of: FieldSchema): FieldSchema => ({ kind: 'list', of });

/** Go's error for a value of the wrong JSON type; decoding stops on it. */
export class UnmarshalTypeError extends Error {}

interface Walk {
  /** Strict-decoding complaints, in document order. */
  strict: string[];
  firstTypeError?: UnmarshalTypeError;
}

/**
 * Returns the value with every known field kept (typed as the schema says; unknown fields dropped) or throws:
 * the first type error, else `strict decoding error: …` when `strictErrors` (passed in, e.g. repeated YAML keys
 * found earlier) or unknown fields exist.
 */
export function decodeStrict(value: unknown, schema: StructSchema, strictErrors: string[] = [], skip: readonly string[] = []): Record<string, unknown> {
  const w: Walk = { strict: [...strictErrors] };
  const out = decodeStruct(value, schema, '', [], w, skip);
  if (w.firstTypeError) throw w.firstTypeError;
  if (w.strict.length) throw new Error(`strict decoding error: ${w.strict.join(', ')}`);
  return out ?? {};
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  // Go names the JSON kind only (`number`), not the value, when the target is not numeric at all.
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function goTypeName(s: FieldSchema): string {
  switch (s.kind) {
    case 'string':
      return 'string';
    case 'bool':
      return 'bool';
    case 'list':
      return `[]${s.of.kind === 'struct' ? `v1.${s.of.goName}` : goTypeName(s.of)}`;
    case 'struct':
      return `v1.${s.goName}`;
  }
}

function typeError(w: Walk, v: unknown, structName: string, goPath: string[], schema: FieldSchema): undefined {
  const where = structName ? `Go struct field ${structName}.${goPath.join('.')}` : 'Go value';
  w.firstTypeError ??= new UnmarshalTypeError(`json: cannot unmarshal ${jsonType(v)} into ${where} of type ${goTypeName(schema)}`);
  return undefined;
}

function decodeValue(v: unknown, schema: FieldSchema, path: string, goPath: string[], structName: string, w: Walk): unknown {
  if (v === null || v === undefined) return undefined;
  switch (schema.kind) {
    case 'string':
      return typeof v === 'string' ? v : typeError(w, v, structName, goPath, schema);
    case 'bool':
      return typeof v === 'boolean' ? v : typeError(w, v, structName, goPath, schema);
    case 'list': {
      if (!Array.isArray(v)) return typeError(w, v, structName, goPath, schema);
      return v.map((item, i) => decodeValue(item, schema.of, `${path}[${i}]`, goPath, structName, w));
    }
    case 'struct':
      return decodeStruct(v, schema, path, goPath, w, [], structName);
  }
}

function decodeStruct(v: unknown, schema: StructSchema, path: string, goPath: string[], w: Walk, skip: readonly string[], outerName = ''): Record<string, unknown> | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return typeError(w, v, outerName, goPath, schema);
  const out: Record<string, unknown> = {};
  for (const [name, fv] of Object.entries(v as Record<string, unknown>)) {
    const fieldPath = path ? `${path}.${name}` : name;
    const fs = schema.fields[name];
    if (!fs) {
      if (!skip.includes(name)) w.strict.push(`unknown field ${goQuote(fieldPath)}`);
      continue;
    }
    const decoded = decodeValue(fv, fs, fieldPath, [...goPath, name], schema.goName, w);
    if (decoded !== undefined) out[name] = decoded;
  }
  return out;
}
