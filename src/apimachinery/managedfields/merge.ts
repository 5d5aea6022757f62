/**
 * Merging an apply configuration into a live value, and removing owned paths from a value (structured-merge-diff
 * `typed/merge.go` with the keep-right-hand-side rule, and `typed/remove.go`). Values are shared, never mutated:
 * the results reuse sub-values of their inputs.
 */
import type { FieldSet } from './fieldset.ts';
import { fieldElement, peString, type PathElement } from './pathelement.ts';
import { fieldType, type ListNode, OPAQUE, type TypeNode } from './typeschema.ts';
import { isMap, listItemAt, listItemPE, TypedError } from './typed.ts';

const emptyList = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
const emptyMap = (v: unknown): boolean => v === undefined || v === null || (isMap(v) && Object.keys(v).length === 0);
const badList = (v: unknown): boolean => v !== undefined && v !== null && !Array.isArray(v);
const badMap = (v: unknown): boolean => v !== undefined && v !== null && !isMap(v);

/**
 * Merges `rhs` (config) onto `lhs` (live): leaves and atomic nodes take the config's value, granular maps and
 * structs merge per key, associative lists per item (in upstream's interleaved order). undefined: no value.
 */
export function merge(l: unknown, r: unknown, t: TypeNode): unknown {
  const keepRHS = r !== undefined ? r : l;
  if (t.kind === 'scalar') return keepRHS;
  if (t.kind === 'list') {
    if (!t.associative || badList(l) || badList(r) || (emptyList(l) && emptyList(r))) return keepRHS;
    return mergeListItems(t, (l as unknown[] | null | undefined) ?? [], (r as unknown[] | null | undefined) ?? []);
  }
  if (t.atomic || badMap(l) || badMap(r) || (emptyMap(l) && emptyMap(r))) return keepRHS;
  const lm = (l ?? {}) as Record<string, unknown>;
  const rm = (r ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
    if (lm[k] === undefined && rm[k] === undefined) continue;
    const v = merge(lm[k], rm[k], fieldType(t, k) ?? OPAQUE);
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface Indexed {
  pes: PathElement[];
  /** Item by key; a duplicated key in the live list maps to null. */
  observed: Map<string, unknown>;
}

function indexList(t: ListNode, list: unknown[], allowDuplicates: boolean): Indexed {
  const pes: PathElement[] = [];
  const observed = new Map<string, unknown>();
  list.forEach((item, i) => {
    const pe = listItemAt(t, item, i);
    if (observed.has(pe.s)) {
      if (!allowDuplicates) throw new TypedError(`duplicate entries for key ${peString(pe)}`);
      observed.set(pe.s, null);
    } else observed.set(pe.s, item);
    pes.push(pe);
  });
  return { pes, observed };
}

// Port of upstream's visitListItems: live items keep their place, config items are placed in config order
// relative to the items both lists share.
function mergeListItems(t: ListNode, l: unknown[], r: unknown[]): unknown {
  const rhs = indexList(t, r, false);
  const lhs = indexList(t, l, true);
  const out: unknown[] = [];
  const push = (lc: unknown, rc: unknown): void => {
    const v = merge(lc, rc, t.elem);
    if (v !== undefined) out.push(v);
  };
  const shared = rhs.pes.filter((pe) => lhs.observed.has(pe.s));
  let nextShared: PathElement | null = shared.shift() ?? null;
  const mergedRHS = new Set<string>();
  const lLen = lhs.pes.length;
  const rLen = rhs.pes.length;
  let lI = 0;
  let rI = 0;
  while (lI < lLen || rI < rLen) {
    if (lI < lLen && rI < rLen) {
      const pe = lhs.pes[lI]!;
      if (pe.s === rhs.pes[rI]!.s) {
        mergedRHS.add(pe.s);
        push(lhs.observed.get(pe.s), rhs.observed.get(pe.s));
        lI++;
        rI++;
        nextShared = shared.shift() ?? null;
        continue;
      }
      if (rhs.observed.has(pe.s) && nextShared !== null && nextShared.s !== pe.s) {
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const pe = lhs.pes[lI]!;
      if (!rhs.observed.has(pe.s)) {
        push(l[lI], undefined);
        lI++;
        continue;
      } else if (mergedRHS.has(pe.s)) lI++;
    }
    if (rI < rLen) {
      const pe = rhs.pes[rI]!;
      mergedRHS.add(pe.s);
      push(lhs.observed.get(pe.s), rhs.observed.get(pe.s));
      rI++;
      if (nextShared !== null && nextShared.s === pe.s) nextShared = shared.shift() ?? null;
    }
  }
  return out.length > 0 ? out : undefined;
}

/**
 * `v` without the paths in `s` (upstream RemoveItems): a member path drops that key or item whole; a map or list
 * left empty becomes null, as upstream, so the caller's canonical conversion drops it.
 */
export function removeItems(v: unknown, s: FieldSet, t: TypeNode): unknown {
  if (t.kind === 'scalar') return v;
  if (t.kind === 'list') {
    if (!Array.isArray(v) || v.length === 0 || !t.associative) return null;
    const items: unknown[] = [];
    for (const item of v) {
      let pe: PathElement | null;
      try {
        pe = listItemPE(t, item);
      } catch {
        pe = null; // upstream ignores the error here: the item matches nothing and stays
      }
      if (pe !== null && s.members.has(pe.s)) continue;
      const sub = pe === null ? null : s.withPrefix(pe);
      items.push(sub === null || sub.empty() ? item : removeItems(item, sub, t.elem));
    }
    return items.length > 0 ? items : null;
  }
  if (!isMap(v) || Object.keys(v).length === 0 || t.atomic) return null;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const pe = fieldElement(k);
    if (s.members.has(pe.s)) continue;
    const sub = s.withPrefix(pe);
    out[k] = sub.empty() ? v[k] : removeItems(v[k], sub, fieldType(t, k) ?? OPAQUE);
  }
  return Object.keys(out).length > 0 ? out : null;
}
