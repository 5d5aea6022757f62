/**
 * The element order of merged lists in a strategic merge patch (upstream normalizeElementOrder and helpers): items
 * named in the patch (or in `$setElementOrder`) follow that order, the others keep the live order, and the two are
 * interleaved by the live order.
 */
import { newBadRequest } from '../errors.ts';
import { hasKey, isMap } from './body.ts';
import { goSprint } from './go-format.ts';

export type Kind = 'map' | 'scalar';

const DIRECTIVE = '$patch';

/** ErrNoMergeKey. */
export function noMergeKey(m: Record<string, unknown>, key: string) {
  return newBadRequest(`map: ${goSprint(m)} does not contain declared merge key: ${key}`);
}

export function keyOf(v: unknown, mergeKey: string): unknown {
  return mergeKey && isMap(v) ? v[mergeKey] : v;
}

function indexIn(list: unknown[], v: unknown, mergeKey: string): number {
  const k = keyOf(v, mergeKey);
  return list.findIndex((x) => keyOf(x, mergeKey) === k);
}

/** Splits `items` into those present in `by` and the rest, keeping their order. */
export function partition(items: unknown[], by: unknown[], mergeKey: string, kind: Kind): [unknown[], unknown[]] {
  const yes: unknown[] = [];
  const no: unknown[] = [];
  for (const v of items) (indexIn(by, v, kind === 'map' ? mergeKey : '') >= 0 ? yes : no).push(v);
  return [yes, no];
}

/** Orders patch items by `patchOrder` and server-only items by `serverOrder`, then interleaves them by the latter. */
export function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: Kind): unknown[] {
  const mk = kind === 'map' ? mergeKey : '';
  const left = sortByOrder(serverOnly, serverOrder, mk, kind);
  const right = sortByOrder(patch, patchOrder, mk, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mk);
      const ri = indexIn(serverOrder, right[j], mk);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

// Go's sort.SliceStable with upstream's comparator (items not in `order` compare as "less"): an insertion sort,
// which is what Go runs for lists of up to 20 items; deletion items go last.
function sortByOrder(items: unknown[], order: unknown[], mergeKey: string, kind: Kind): unknown[] {
  let list = items;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    for (const v of [...items, ...order]) if (isMap(v) && !hasKey(v, mergeKey)) throw noMergeKey(v, mergeKey);
    list = items.filter((v) => !(isMap(v) && v[DIRECTIVE] === 'delete'));
    deletions = items.filter((v) => isMap(v) && v[DIRECTIVE] === 'delete');
  }
  const s = [...list];
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexIn(order, a, mergeKey);
    const ib = indexIn(order, b, mergeKey);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  for (let i = 1; i < s.length; i++) {
    for (let j = i; j > 0 && less(s[j], s[j - 1]); j--) [s[j], s[j - 1]] = [s[j - 1], s[j]];
  }
  return [...s, ...deletions];
}

// Upstream's in-place de-duplication (a repeat is replaced by the last item); the order is normalized afterwards.
export function dedupeScalars(s: unknown[]): unknown[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}
