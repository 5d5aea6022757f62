/**
 * Go-compatible output: Go struct key order and omitempty from the schema, sorted map keys, and the HTML-safe
 * escaping of Go's json.Encoder (`<`, `>`, `&`, U+2028, U+2029 as \u escapes). The bytes come from
 * JSON.stringify (its control-character escapes already match Go ≥ 1.22), so the schema work is a cheap
 * reordering pass.
 */
import { stringify as yamlStringify } from 'yaml';
import type { Definitions } from '../schema.ts';
import {
  K_ANY, K_ARRAY, K_BOOL, K_INT32, K_INT64, K_MAP, K_MICRO, K_STRING, K_STRUCT, K_TIME,
  compiledStruct, type StructNode, type TypeNode,
} from './compile.ts';
import { isObject, zeroValue } from './convert.ts';
import { setOwn } from './jsonscan.ts';

const HTML_TEST = /[<>&\u2028\u2029]/;
const HTML_ALL = /[<>&\u2028\u2029]/g;
const HTML_ESC: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** Applies Go's HTML-safe escaping to JSON text (the characters only occur inside strings). */
function goEscape(json: string): string {
  return HTML_TEST.test(json) ? json.replace(HTML_ALL, (c) => HTML_ESC[c]!) : json;
}

// Set while canonicalizing when a map has a key JS objects would enumerate out of insertion order.
let sawIndexKey = false;
const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

function canonStruct(sn: StructNode, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of sn.fields) {
    const v = canonValue(f.t, raw[f.name]);
    if (v !== undefined) out[f.name] = v;
    else if (f.always) out[f.name] = zeroValue(f.t);
  }
  return out;
}

// Undefined = empty (omitted unless always-emitted). Internal objects are trusted to have the right types.
function canonValue(t: TypeNode, v: unknown): unknown {
  if (v === undefined || v === null) return undefined;
  switch (t.k) {
    case K_STRING:
    case K_TIME:
    case K_MICRO:
      return v === '' ? undefined : v;
    case K_INT32:
    case K_INT64:
      return v === 0 && !t.keepZero ? undefined : v;
    case K_BOOL:
      return v === false ? undefined : v;
    case K_ANY:
      return v;
    case K_STRUCT:
      return isObject(v) ? canonStruct(t.struct!, v) : undefined;
    case K_ARRAY: {
      if (!Array.isArray(v) || v.length === 0) return undefined;
      const et = t.elem!;
      if (et.k !== K_STRUCT && et.k !== K_MAP) return v.slice();
      return v.map((e) => canonValue(et, e) ?? zeroValue(et));
    }
    case K_MAP: {
      if (!isObject(v)) return undefined;
      const keys = Object.keys(v);
      if (keys.length === 0) return undefined;
      keys.sort();
      const out: Record<string, unknown> = {};
      const et = t.elem!;
      for (const k of keys) {
        if (!sawIndexKey && INDEX_KEY.test(k)) sawIndexKey = true;
        setOwn(out, k, et.k === K_STRING ? v[k] : (canonValue(et, v[k]) ?? zeroValue(et)));
      }
      return out;
    }
  }
  return undefined;
}

/** The object as encode writes it: schema key order, omitempty, always-emitted fields, sorted map keys. */
export function canonicalize(obj: object, defs: Definitions, rootDef: string): Record<string, unknown> {
  return canonStruct(compiledStruct(defs, rootDef), obj as Record<string, unknown>);
}

// Fallback writer for the rare maps with integer-like keys, which JS objects cannot keep in Go's order.
function stringifySorted(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((e) => (e === undefined ? 'null' : stringifySorted(e))).join(',')}]`;
  if (!isObject(v)) return JSON.stringify(v) ?? 'null';
  let keys = Object.keys(v);
  if (keys.some((k) => INDEX_KEY.test(k))) keys = keys.sort();
  const parts: string[] = [];
  for (const k of keys) if (v[k] !== undefined) parts.push(`${JSON.stringify(k)}:${stringifySorted(v[k])}`);
  return `{${parts.join(',')}}`;
}

/** Compact Go-style JSON of a schema object, without a trailing newline. */
export function encode(obj: object, defs: Definitions, rootDef: string): Buffer {
  sawIndexKey = false;
  const c = canonicalize(obj, defs, rootDef);
  const json = sawIndexKey ? stringifySorted(c) : JSON.stringify(c);
  return goBytes(json);
}

/**
 * UTF-8 bytes of JSON text with Go's HTML-safe escaping. Searching the bytes for `<`, `>`, `&` and the lead byte
 * of U+2028/U+2029 (0xE2, shared with other characters: then the text path decides) is several times cheaper than
 * the regular expression over the text, and escaping is almost never needed.
 */
function goBytes(json: string): Buffer {
  const buf = Buffer.from(json);
  if (buf.indexOf(0x3c) < 0 && buf.indexOf(0x3e) < 0 && buf.indexOf(0x26) < 0 && buf.indexOf(0xe2) < 0) return buf;
  return HTML_TEST.test(json) ? Buffer.from(json.replace(HTML_ALL, (c) => HTML_ESC[c]!)) : buf;
}

/** Compact JSON with Go's escaping, for schemaless values (Status, Table, discovery); no trailing newline. */
export function goJSON(value: unknown): string {
  return goEscape(JSON.stringify(value));
}

/** JSON indented by 2 spaces (Go's MarshalIndent) with Go's escaping; no trailing newline. */
export function prettyJSON(value: unknown): string {
  return goEscape(JSON.stringify(value, null, 2));
}

/**
 * YAML as sigs.k8s.io/yaml writes it (go-yaml v2): keys sorted, sequences not indented under their key,
 * strings that would read back as another type quoted (YAML 1.1 rules, so `yes`, `on`, `y` too), no folding.
 */
export function toYAML(value: unknown): string {
  return yamlStringify(value, {
    version: '1.1',
    sortMapEntries: true,
    indentSeq: false,
    lineWidth: 0,
    minContentWidth: 0,
    nullStr: 'null',
  });
}
