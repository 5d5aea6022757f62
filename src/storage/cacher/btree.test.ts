/** countBelow / countRangeOf: ranks from sorted-btree's cached subtree sizes agree with walking the keys. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BTree, countBelow, countRangeOf, keyAt } from './btree.ts';

/** A deterministic pseudo-random sequence (the test must not depend on the run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const walkCount = (t: BTree<string, number>, low: string, high: string): number => (high <= low ? 0 : t.forRange(low, high, false));

function check(t: BTree<string, number>, probes: string[]): void {
  for (const p of probes) assert.equal(countBelow(t, p), walkCount(t, '', p), `below ${JSON.stringify(p)}`);
  for (let i = 0; i + 1 < probes.length; i += 2) {
    const [a, b] = [probes[i]!, probes[i + 1]!];
    assert.equal(countRangeOf(t, a, b), walkCount(t, a, b), `range ${a}..${b}`);
  }
}

describe('countBelow', () => {
  it('counts an empty tree and a single leaf', () => {
    const t = new BTree<string, number>();
    assert.equal(countBelow(t, 'x'), 0);
    t.set('b', 1);
    t.set('d', 2);
    check(t, ['', 'a', 'b', 'b\0', 'c', 'd', 'e', '\uffff']);
  });

  it('agrees with a walk over a deep tree, through inserts, deletes and copy-on-write clones', () => {
    const r = rng(7);
    const key = () => `/ns${Math.floor(r() * 30)}/e-${Math.floor(r() * 100_000)}`;
    const t = new BTree<string, number>();
    for (let i = 0; i < 20_000; i++) t.set(key(), i);
    const probes = () => Array.from({ length: 200 }, () => (r() < 0.5 ? key() : key() + '\0'));
    check(t, probes());
    // A snapshot keeps its counts while the live tree changes under it.
    const snap = t.clone();
    const before = probes().map((p) => [p, countBelow(snap, p)] as const);
    for (let i = 0; i < 5_000; i++) t.delete(key());
    for (let i = 0; i < 5_000; i++) t.set(key(), i);
    t.deleteRange('/ns1/', '/ns2/', false);
    check(t, probes());
    check(snap, probes());
    for (const [p, n] of before) assert.equal(countBelow(snap, p), n);
    t.checkValid();
    snap.checkValid();
  });

  it('finds the key at every index (keyAt), the inverse of countBelow', () => {
    const r = rng(11);
    const t = new BTree<string, number>();
    for (let i = 0; i < 10_000; i++) t.set(`k${Math.floor(r() * 1e9)}`, i);
    const snap = t.clone();
    for (let i = 0; i < 3000; i++) t.delete(t.minKey()!);
    for (const tree of [t, snap]) {
      const keys = tree.keysArray();
      keys.forEach((k, i) => {
        assert.equal(keyAt(tree, i), k);
        assert.equal(countBelow(tree, k), i);
      });
      assert.equal(keyAt(tree, keys.length), undefined);
      assert.equal(keyAt(tree, -1), undefined);
    }
    assert.equal(keyAt(new BTree<string, number>(), 0), undefined);
  });

  it('counts the range of a prefix from any start key', () => {
    const t = new BTree<string, number>();
    for (let i = 0; i < 5000; i++) t.set(`/o/ns${i % 3}/o${String(i).padStart(5, '0')}`, i);
    const end = '/o/ns10'; // prefixEnd('/o/ns1/')
    assert.equal(countRangeOf(t, '/o/ns1/', end), walkCount(t, '/o/ns1/', end));
    assert.equal(countRangeOf(t, '/o/ns1/o00100\0', end), walkCount(t, '/o/ns1/o00100\0', end));
    assert.equal(countRangeOf(t, end, '/o/ns1/'), 0);
  });
});
