import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldIndex } from './field-index.ts';

describe('FieldIndex', () => {
  it('keeps the keys of each value sorted through adds and deletes, whatever form they are kept in', () => {
    const idx = new FieldIndex();
    const want = new Map<string, Set<string>>();
    // A deterministic shuffle of adds and deletes over values with 1, a few, and over a thousand keys.
    let seed = 7;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    for (let step = 0; step < 60_000; step++) {
      const value = ['one', 'few', 'many'][rnd(3)]!;
      const key = `/k/${String(rnd(value === 'one' ? 2 : value === 'few' ? 8 : 3000)).padStart(4, '0')}`;
      const set = want.get(value) ?? new Set();
      want.set(value, set);
      if (rnd(3) === 0) {
        idx.delete(value, key);
        set.delete(key);
      } else {
        idx.add(value, key);
        set.add(key);
      }
    }
    for (const [value, set] of want) {
      assert.equal(idx.count(value), set.size, value);
      assert.deepEqual(idx.sortedKeys(value), [...set].sort(), value);
    }
    assert.ok(want.get('many')!.size > 1024, 'the large value went past the array limit');
    assert.equal(idx.count('none'), 0);
    assert.deepEqual(idx.sortedKeys('none'), []);
  });

  it('hands out arrays the index no longer changes', () => {
    const idx = new FieldIndex();
    idx.add('v', '/b');
    idx.add('v', '/a');
    idx.add('v', '/a');
    const keys = idx.sortedKeys('v');
    assert.deepEqual(keys, ['/a', '/b']);
    idx.add('v', '/c');
    idx.delete('v', '/a');
    assert.deepEqual(keys, ['/a', '/b']);
    assert.deepEqual(idx.sortedKeys('v'), ['/b', '/c']);
    idx.delete('v', '/b');
    idx.delete('v', '/c');
    assert.equal(idx.count('v'), 0);
    idx.clear();
  });
});
