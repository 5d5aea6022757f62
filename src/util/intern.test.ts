import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StringPool, ValuePool } from './intern.ts';

describe('StringPool', () => {
  it('returns the first copy of a value and stops growing at capacity', () => {
    const p = new StringPool(2);
    const a = ['No', 'rmal'].join('');
    assert.equal(p.intern(a), 'Normal');
    assert.equal(p.intern('Normal'), a);
    p.intern('Warning');
    assert.equal(p.intern('Other'), 'Other');
    assert.equal(p.size, 2);
  });
});

describe('ValuePool', () => {
  it('shares one value per key and makes unshared values once full', () => {
    const p = new ValuePool<{ n: number }>(1);
    let made = 0;
    const make = () => ({ n: ++made });
    const a = p.intern('a', make);
    assert.equal(p.intern('a', make), a);
    assert.equal(made, 1);
    const b1 = p.intern('b', make);
    const b2 = p.intern('b', make);
    assert.notEqual(b1, b2);
    assert.deepEqual([b1.n, b2.n], [2, 3]);
    assert.equal(p.size, 1);
  });
});
