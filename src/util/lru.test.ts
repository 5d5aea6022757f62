import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LRUCache } from './lru.ts';

describe('LRUCache', () => {
  it('evicts the least recently used entry past its size', () => {
    const c = new LRUCache<string, number>(2);
    c.add('a', 1);
    c.add('b', 2);
    c.add('c', 3);
    assert.equal(c.get('a'), undefined);
    assert.equal(c.get('b'), 2);
    assert.equal(c.get('c'), 3);
    assert.equal(c.size, 2);
  });

  it('a get makes an entry the most recently used', () => {
    const c = new LRUCache<string, number>(2);
    c.add('a', 1);
    c.add('b', 2);
    assert.equal(c.get('a'), 1);
    c.add('c', 3);
    assert.equal(c.has('a'), true);
    assert.equal(c.has('b'), false);
  });

  it('adding an existing key replaces it and refreshes it', () => {
    const c = new LRUCache<string, number>(2);
    c.add('a', 1);
    c.add('b', 2);
    c.add('a', 10);
    c.add('c', 3);
    assert.equal(c.get('a'), 10);
    assert.equal(c.has('b'), false);
  });

  it('refuses a size that is not positive (as golang-lru does)', () => {
    assert.throws(() => new LRUCache(0), /must provide a positive size/);
    assert.throws(() => new LRUCache(-1), /must provide a positive size/);
  });
});
