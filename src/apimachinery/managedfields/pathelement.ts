/**
 * Path elements of a field set (structured-merge-diff `fieldpath.PathElement`): a struct field or map key, an
 * associative-list item by its key fields, a set item by its value, or a list index. Their total order, their
 * FieldsV1 key form (`f:`, `k:`, `v:`, `i:`) and their printed form (`.a`, `[uid="x"]`, `[="x"]`, `[0]`) follow
 * upstream exactly, because clients see all three (managedFields order, conflict messages).
 */
import { goJSON } from '../codec/index.ts';
import { EXCEEDED_MAX_DEPTH, jsonNestingDepth, MAX_NESTING_DEPTH } from '../codec/nesting.ts';
import { goQuote } from '../../util/goquote.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export type PathElement =
  | { readonly t: 'f'; readonly name: string; readonly s: string }
  | { readonly t: 'k'; readonly key: readonly (readonly [string, Json])[]; readonly s: string }
  | { readonly t: 'v'; readonly value: Json; readonly s: string }
  | { readonly t: 'i'; readonly index: number; readonly s: string };

export type Path = readonly PathElement[];

/** Go's strings.Compare: byte order of the UTF-8 encodings (which is code point order, not UTF-16 order). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x < y ? -1 : 1;
    return Buffer.compare(Buffer.from(a.slice(i)), Buffer.from(b.slice(i)));
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function rank(v: Json): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null) return 4;
  return 5;
}

/** structured-merge-diff's value.Compare: numbers < strings < bools < lists < maps < null. */
export function compareValues(a: Json, b: Json): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as Json[];
      const lb = b as Json[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i]!, lb[i]!);
        if (c !== 0) return c;
      }
      return la.length - lb.length < 0 ? -1 : la.length > lb.length ? 1 : 0;
    }
    case 4: {
      const ma = a as Record<string, Json>;
      const mb = b as Record<string, Json>;
      const ka = Object.keys(ma).sort(compareStrings);
      const kb = Object.keys(mb).sort(compareStrings);
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const c = compareStrings(ka[i]!, kb[i]!) || compareValues(ma[ka[i]!]!, mb[kb[i]!]!);
        if (c !== 0) return c;
      }
      return ka.length < kb.length ? -1 : ka.length > kb.length ? 1 : 0;
    }
    default:
      return 0;
  }
}

/** Deep equality of JSON values (map key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  for (const k of ka) if (!Object.hasOwn(rb, k) || !jsonEqual(ra[k], rb[k])) return false;
  return true;
}

/** Compact JSON as Go's encoding/json writes a map: keys sorted, `<`, `>`, `&` escaped. */
export function sortedGoJSON(v: unknown): string {
  if (v === null || typeof v !== 'object') return goJSON(v);
  if (Array.isArray(v)) return `[${v.map((e) => sortedGoJSON(e)).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort(compareStrings);
  return `{${keys.map((k) => `${goJSON(k)}:${sortedGoJSON(o[k])}`).join(',')}}`;
}

export function fieldElement(name: string): PathElement {
  return { t: 'f', name, s: 'f:' + name };
}

/** A key element; `fields` may come in any order (upstream sorts them by name). */
export function keyElement(fields: [string, Json][]): PathElement {
  const key = fields.slice().sort((x, y) => compareStrings(x[0], y[0]));
  return { t: 'k', key, s: `k:{${key.map(([n, v]) => `${goJSON(n)}:${sortedGoJSON(v)}`).join(',')}}` };
}

export function valueElement(value: Json): PathElement {
  return { t: 'v', value, s: 'v:' + sortedGoJSON(value) };
}

export function indexElement(index: number): PathElement {
  return { t: 'i', index, s: 'i:' + String(index) };
}

const KIND_ORDER = { f: 0, k: 1, v: 2, i: 3 } as const;

/** Field names, then keys, then values, then indices; each compared as upstream. */
export function comparePE(a: PathElement, b: PathElement): number {
  if (a.t !== b.t) return KIND_ORDER[a.t] < KIND_ORDER[b.t] ? -1 : 1;
  switch (a.t) {
    case 'f':
      return compareStrings(a.name, (b as typeof a).name);
    case 'k': {
      const kb = (b as typeof a).key;
      for (let i = 0; i < Math.min(a.key.length, kb.length); i++) {
        const c = compareStrings(a.key[i]![0], kb[i]![0]) || compareValues(a.key[i]![1], kb[i]![1]);
        if (c !== 0) return c;
      }
      return a.key.length < kb.length ? -1 : a.key.length > kb.length ? 1 : 0;
    }
    case 'v':
      return compareValues(a.value, (b as typeof a).value);
    case 'i': {
      const ib = (b as typeof a).index;
      return a.index < ib ? -1 : a.index > ib ? 1 : 0;
    }
  }
}

// Go's value.ToString: strings quoted with %q, numbers and bools with %v.
function valueString(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(',')}]`;
  return Object.keys(v).map((k) => `${k}=${valueString(v[k]!)}`).join('');
}

/** The printed form used in conflict messages: `.metadata.labels.app`, `[uid="U"]`, `[="x"]`, `[3]`. */
export function peString(pe: PathElement): string {
  switch (pe.t) {
    case 'f':
      return '.' + pe.name;
    case 'k':
      return `[${pe.key.map(([n, v]) => `${n}=${valueString(v)}`).join(',')}]`;
    case 'v':
      return `[=${valueString(pe.value)}]`;
    case 'i':
      return `[${pe.index}]`;
  }
}

export function pathString(p: Path): string {
  return p.map(peString).join('');
}

export class PathElementError extends Error {}

/** Parses one FieldsV1 key; returns null for an unknown element type (upstream skips those). */
export function deserializePE(s: string): PathElement | null {
  if (s.length < 2) throw new PathElementError('key must be 2 characters long:');
  if (s[1] !== ':') throw new PathElementError(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return valueElement(parseJSON(body));
    case 'k': {
      const v = parseJSON(body);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new PathElementError(`key must be a JSON object: ${s}`);
      return keyElement(Object.entries(v));
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(body)) throw new PathElementError(`strconv.Atoi: parsing ${goQuote(body)}: invalid syntax`);
      return indexElement(Number(body));
    }
    default:
      return null;
  }
}

function parseJSON(s: string): Json {
  // A `k:`/`v:` key is JSON inside a string, which the body's nesting check could not see.
  if (jsonNestingDepth(s) > MAX_NESTING_DEPTH) throw new PathElementError(EXCEEDED_MAX_DEPTH);
  try {
    return JSON.parse(s) as Json;
  } catch (e) {
    throw new PathElementError((e as Error).message);
  }
}
