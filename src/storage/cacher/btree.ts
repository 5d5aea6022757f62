/**
 * sorted-btree is CommonJS with an `exports.default` class; under Node's ESM loader the default import is the
 * module object, so take the class from its `default` property once here.
 */
import BTreeModule from 'sorted-btree';

export const BTree = BTreeModule.default;
export type BTree<K, V> = InstanceType<typeof BTreeModule.default<K, V>>;
