import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StringPool } from './intern.ts';

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
