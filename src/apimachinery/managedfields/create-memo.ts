/**
 * managedFields of a create are the same for every object of the same shape: the field set of an untracked
 * create is what `compare(emptyObject, next)` adds or modifies, and that depends only on which paths `next`
 * sets (plus, where the empty object has a value, whether `next` keeps it), never on the values of new leaves.
 * A busy cluster creates millions of events of a handful of shapes, so the FieldsV1 of each shape is computed
 * once by the general code and reused; this file holds the shape key and the bounded memo.
 */
import { jsonEqual } from './pathelement.ts';
import { isMap, listItemAt } from './typed.ts';
import { fieldType, type ListNode, OPAQUE, type TypeNode } from './typeschema.ts';

const emptyList = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
const emptyMap = (v: unknown): boolean => v === undefined || v === null || (isMap(v) && Object.keys(v).length === 0);
const badList = (v: unknown): boolean => v !== undefined && v !== null && !Array.isArray(v);
const badMap = (v: unknown): boolean => v !== undefined && v !== null && !isMap(v);

// The signature is built in one string (V8 ropes make `+=` cheap); a module-level buffer avoids a closure per call.
let acc = '';

const name = (s: string): void => {
  acc += s.length + ':' + s;
};

/**
 * The walk of typed.ts `walkCompare(l, r, t)` written down as text: every visited node's path element
 * (length-prefixed, so any key is unambiguous), the subtree it descends into (`{…}` or `[…]`), and the outcome it
 * records (`A` added, `R` removed, `M` modified, `.` nothing). Two pairs with the same signature make `compare`
 * insert the same paths into the same sets, so the resulting field sets are equal. Throws where `compare` would
 * (a malformed associative list), so callers fall back to the general code.
 */
export function compareSignature(l: unknown, r: unknown, t: TypeNode): string {
  acc = '';
  try {
    walk(l, r, t);
    return acc;
  } finally {
    acc = '';
  }
}

function walk(l: unknown, r: unknown, t: TypeNode): void {
  let leaf: boolean;
  if (t.kind === 'scalar') leaf = true;
  else if (t.kind === 'list') {
    leaf = !t.associative || badList(l) || badList(r) || (emptyList(l) && emptyList(r));
    if (!leaf) {
      acc += '[';
      listItems(t, (l as unknown[] | null | undefined) ?? [], (r as unknown[] | null | undefined) ?? []);
      acc += ']';
    }
  } else {
    leaf = t.atomic || badMap(l) || badMap(r) || (emptyMap(l) && emptyMap(r));
    if (!leaf) {
      const lm = (l ?? {}) as Record<string, unknown>;
      const rm = (r ?? {}) as Record<string, unknown>;
      acc += '{';
      // The same keys in the same order as walkCompare's `new Set([...keys(l), ...keys(r)])`.
      for (const k of Object.keys(lm)) {
        if (lm[k] === undefined && rm[k] === undefined) continue;
        name(k);
        walk(lm[k], rm[k], fieldType(t, k) ?? OPAQUE);
      }
      for (const k of Object.keys(rm)) {
        if (Object.hasOwn(lm, k) || (lm[k] === undefined && rm[k] === undefined)) continue;
        name(k);
        walk(lm[k], rm[k], fieldType(t, k) ?? OPAQUE);
      }
      acc += '}';
    }
  }
  acc += l === undefined ? 'A' : r === undefined ? 'R' : leaf && !jsonEqual(l, r) ? 'M' : '.';
}

/** As typed.ts `compareListItems`: items grouped by path element, left order first, then new right items. */
function listItems(t: ListNode, l: unknown[], r: unknown[]): void {
  const order: string[] = [];
  const lv = new Map<string, unknown[]>();
  const rv = new Map<string, unknown[]>();
  const index = (list: unknown[], into: Map<string, unknown[]>): void => {
    list.forEach((item, i) => {
      const s = listItemAt(t, item, i).s;
      const seen = into.get(s);
      if (seen !== undefined) seen.push(item);
      else {
        into.set(s, [item]);
        if (into === lv || !lv.has(s)) order.push(s);
      }
    });
  };
  index(l, lv);
  index(r, rv);
  for (const s of order) {
    const ll = lv.get(s) ?? [];
    const rl = rv.get(s) ?? [];
    name(s);
    if (ll.length <= 1 && rl.length <= 1) walk(ll[0], rl[0], t.elem);
    else if (ll.length >= 2 && rl.length >= 2) acc += jsonEqual(ll, rl) ? '=' : 'M';
    else if (ll.length >= 2) {
      acc += '<';
      if (rl.length !== 0) walk(undefined, rl[0], t.elem);
      acc += 'R';
    } else {
      acc += '>';
      if (ll.length !== 0) walk(ll[0], undefined, t.elem);
      acc += 'A';
    }
  }
}

/** Deep-frozen, so a shared value cannot be changed through one object that carries it. */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * Signature → the FieldsV1 of an untracked create (null: nothing to record). Bounded: when full the oldest
 * shapes go first (Map iteration order is insertion order), so a flood of distinct shapes cannot grow memory.
 */
export class CreateFieldsMemo {
  readonly #entries = new Map<string, Readonly<Record<string, unknown>> | null>();
  readonly #max: number;

  constructor(max = 256) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The memoized FieldsV1 (frozen) or null; undefined when the shape is not known yet. */
  get(signature: string): Readonly<Record<string, unknown>> | null | undefined {
    return this.#entries.get(signature);
  }

  set(signature: string, fieldsV1: Record<string, unknown> | null): void {
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(signature, fieldsV1 === null ? null : deepFreeze(structuredClone(fieldsV1)));
  }
}
