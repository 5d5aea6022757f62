/**
 * Field sets and comparisons of JSON values under a TypeNode, as structured-merge-diff's `typed` package does
 * (`tofieldset.go`, `compare.go`): which paths a value sets, and which paths two values add, modify or remove.
 * `undefined` means "absent"; JSON null is a present value.
 */
import { FieldSet } from './fieldset.ts';
import {
  fieldElement, jsonEqual, keyElement, type Json, type PathElement, valueElement,
} from './pathelement.ts';
import { fieldType, type ListNode, OPAQUE, type TypeNode } from './typeschema.ts';
import { goQuote } from '../../util/goquote.ts';

/** A value does not fit its schema (upstream: a typed-conversion ValidationError). */
export class TypedError extends Error {}

export function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The path element naming one item of an associative list: its key fields, or its value for a set. */
/** listItemPE for the i-th element, its errors prefixed with the element's index. */
export function listItemAt(t: ListNode, item: unknown, i: number): PathElement {
  try {
    return listItemPE(t, item);
  } catch (e) {
    if (e instanceof TypedError) throw new TypedError(`element ${i}: ${e.message}`);
    throw e;
  }
}

export function listItemPE(t: ListNode, item: unknown): PathElement {
  if (t.keys.length > 0) {
    if (item === null) throw new TypedError('associative list with keys may not have a null element');
    if (!isMap(item)) throw new TypedError('associative list with keys may not have non-map elements');
    const key: [string, Json][] = [];
    for (const k of t.keys) if (item[k] !== undefined) key.push([k, item[k] as Json]);
    if (key.length === 0) {
      const keys = `[${t.keys.map(goQuote).join(' ')}]`;
      throw new TypedError(`associative list with keys has an element that omits all key fields ${keys} (and doesn't have default values for any key fields)`);
    }
    return keyElement(key);
  }
  if (isMap(item)) throw new TypedError("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new TypedError('not supported: associative list with lists as elements');
  if (item === null || item === undefined) throw new TypedError("associative list without keys has an element that's an explicit null");
  return valueElement(item as Json);
}

/** Every path `v` sets (upstream ToFieldSet): leaves, list items, plain-map keys, empty or null struct fields. */
export function toFieldSet(v: unknown, t: TypeNode): FieldSet {
  const set = new FieldSet();
  walkSet(v, t, [], set);
  return set;
}

function walkSet(v: unknown, t: TypeNode, path: PathElement[], set: FieldSet): void {
  if (t.kind === 'scalar') {
    set.insert(path);
    return;
  }
  if (t.kind === 'list') {
    if (!t.associative) {
      set.insert(path);
      return;
    }
    if (!Array.isArray(v)) return;
    const pes = v.map((item) => listItemPE(t, item));
    const count = new Map<string, number>();
    for (const pe of pes) count.set(pe.s, (count.get(pe.s) ?? 0) + 1);
    // Duplicated items are owned as a whole, once.
    for (const pe of pes) if (count.get(pe.s)! > 1) set.insert([...path, pe]);
    pes.forEach((pe, i) => {
      if (count.get(pe.s)! > 1) return;
      const p = [...path, pe];
      walkSet(v[i], t.elem, p, set);
      set.insert(p);
    });
    return;
  }
  if (t.atomic) {
    set.insert(path);
    return;
  }
  if (!isMap(v)) return;
  for (const k of Object.keys(v)) {
    const val = v[k];
    if (val === undefined) continue;
    const p = [...path, fieldElement(k)];
    walkSet(val, fieldType(t, k) ?? OPAQUE, p, set);
    if (val === null || (isMap(val) && Object.keys(val).length === 0)) set.insert(p);
    else if (t.fields === null || !t.fields.has(k)) set.insert(p);
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Compares `lhs` (old) with `rhs` (new); a subtree that appears or disappears counts with its own node. */
export function compare(lhs: unknown, rhs: unknown, t: TypeNode): Comparison {
  const c = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, t, [], c);
  return c;
}

const emptyList = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
const emptyMap = (v: unknown): boolean => v === undefined || v === null || (isMap(v) && Object.keys(v).length === 0);
// A present value of the wrong shape for its type is compared as one leaf.
const badList = (v: unknown): boolean => v !== undefined && v !== null && !Array.isArray(v);
const badMap = (v: unknown): boolean => v !== undefined && v !== null && !isMap(v);

function walkCompare(l: unknown, r: unknown, t: TypeNode, path: PathElement[], c: Comparison): void {
  let leaf: boolean;
  if (t.kind === 'scalar') leaf = true;
  else if (t.kind === 'list') {
    leaf = !t.associative || badList(l) || badList(r) || (emptyList(l) && emptyList(r));
    if (!leaf) compareListItems(t, (l as unknown[] | null | undefined) ?? [], (r as unknown[] | null | undefined) ?? [], path, c);
  } else {
    leaf = t.atomic || badMap(l) || badMap(r) || (emptyMap(l) && emptyMap(r));
    if (!leaf) {
      const lm = (l ?? {}) as Record<string, unknown>;
      const rm = (r ?? {}) as Record<string, unknown>;
      const keys = new Set([...Object.keys(lm), ...Object.keys(rm)]);
      for (const k of keys) {
        if (lm[k] === undefined && rm[k] === undefined) continue;
        walkCompare(lm[k], rm[k], fieldType(t, k) ?? OPAQUE, [...path, fieldElement(k)], c);
      }
    }
  }
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
  else if (leaf && !jsonEqual(l, r)) c.modified.insert(path);
}

function indexItems(t: ListNode, list: unknown[], order: PathElement[], into: Map<string, unknown[]>): void {
  list.forEach((item, i) => {
    const pe = listItemAt(t, item, i);
    const seen = into.get(pe.s);
    if (seen !== undefined) seen.push(item);
    else {
      into.set(pe.s, [item]);
      order.push(pe);
    }
  });
}

function compareListItems(t: ListNode, l: unknown[], r: unknown[], path: PathElement[], c: Comparison): void {
  const all: PathElement[] = [];
  const lv = new Map<string, unknown[]>();
  const rv = new Map<string, unknown[]>();
  indexItems(t, l, all, lv);
  const rOrder: PathElement[] = [];
  indexItems(t, r, rOrder, rv);
  for (const pe of rOrder) if (!lv.has(pe.s)) all.push(pe);
  for (const pe of all) {
    const ll = lv.get(pe.s) ?? [];
    const rl = rv.get(pe.s) ?? [];
    const p = [...path, pe];
    if (ll.length <= 1 && rl.length <= 1) walkCompare(ll[0], rl[0], t.elem, p, c);
    else if (ll.length >= 2 && rl.length >= 2) {
      if (!jsonEqual(ll, rl)) c.modified.insert(p);
    } else if (ll.length >= 2) {
      if (rl.length !== 0) walkCompare(undefined, rl[0], t.elem, p, c);
      c.removed.insert(p);
    } else {
      if (ll.length !== 0) walkCompare(ll[0], undefined, t.elem, p, c);
      c.added.insert(p);
    }
  }
}

/**
 * The set plus every declared struct field that has owned paths below it (upstream EnsureNamedFieldsAreMembers),
 * so that pruning can drop a struct field whose whole subtree is gone.
 */
export function ensureNamedFieldsAreMembers(s: FieldSet, t: TypeNode | null): FieldSet {
  const out = new FieldSet();
  for (const [k, pe] of s.members) out.members.set(k, pe);
  for (const [k, ch] of s.children) {
    let ct: TypeNode | null = null;
    if (ch.pe.t === 'f' && t?.kind === 'map') {
      if (t.fields?.has(ch.pe.name)) out.members.set(k, ch.pe);
      ct = fieldType(t, ch.pe.name);
    } else if (ch.pe.t === 'k' && t?.kind === 'list') ct = t.elem;
    out.children.set(k, { pe: ch.pe, set: ensureNamedFieldsAreMembers(ch.set, ct) });
  }
  return out;
}
