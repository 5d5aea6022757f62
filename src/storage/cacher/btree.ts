/**
 * sorted-btree is CommonJS with an `exports.default` class; under Node's ESM loader the default import is the
 * module object, so take the class from its `default` property once here.
 */
import BTreeModule from 'sorted-btree';

export const BTree = BTreeModule.default;
export type BTree<K, V> = InstanceType<typeof BTreeModule.default<K, V>>;

/**
 * A node as sorted-btree 2.1 (pinned in package.json) lays it out: a leaf holds its sorted `keys`; an internal node
 * also holds `children`, `keys[i]` is the largest key under `children[i]`, and `_size` caches how many keys are
 * under it (kept by every insert, delete and copy-on-write clone: the tree's own `size` reads it).
 */
interface Node {
  keys: string[];
  children?: Node[];
  _size?: number;
}

const sizeOf = (n: Node): number => (n.children ? n._size! : n.keys.length);

/** Index of the first key in `keys` that is not below `key`. */
function lowerBound(keys: string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * How many keys of `tree` are below `key`, in O(log n) from the subtree sizes sorted-btree already keeps (it has no
 * public rank query). Lets a paginated list say how many items remain without walking them on every page.
 * String keys in the tree's default order (the order of `<`).
 */
export function countBelow(tree: BTree<string, unknown>, key: string): number {
  let node = (tree as unknown as { _root: Node })._root;
  let below = 0;
  for (;;) {
    const i = lowerBound(node.keys, key);
    const children = node.children;
    if (!children) return below + i;
    // Every key under children[0 .. i) is below `key`; the rest start in children[i].
    for (let c = 0; c < i; c++) below += sizeOf(children[c]!);
    if (i >= children.length) return below;
    node = children[i]!;
  }
}

/** The key with `index` keys below it (0-based), or undefined past the end: O(log n), like countBelow. */
export function keyAt(tree: BTree<string, unknown>, index: number): string | undefined {
  if (index < 0) return undefined;
  let node = (tree as unknown as { _root: Node })._root;
  let i = index;
  for (;;) {
    const children = node.children;
    if (!children) return node.keys[i];
    let c = 0;
    for (; c < children.length; c++) {
      const n = sizeOf(children[c]!);
      if (i < n) break;
      i -= n;
    }
    if (c === children.length) return undefined;
    node = children[c]!;
  }
}

/** Keys in [low, high). */
export function countRangeOf(tree: BTree<string, unknown>, low: string, high: string): number {
  return high <= low ? 0 : countBelow(tree, high) - countBelow(tree, low);
}
