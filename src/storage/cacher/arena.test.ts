import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValueArena } from './arena.ts';

describe('ValueArena', () => {
  it('copies values back to back into shared slabs and starts a new slab when one is full', () => {
    const arena = new ValueArena(1024);
    const a = arena.copy(Buffer.from('a'.repeat(200)));
    const b = arena.copy(Buffer.from('b'.repeat(200)));
    assert.equal(a.toString(), 'a'.repeat(200));
    assert.equal(b.toString(), 'b'.repeat(200));
    assert.equal(a.buffer, b.buffer);
    assert.equal(a.buffer.byteLength, 1024);
    assert.equal(b.byteOffset, a.byteOffset + 200);
    const rest = [arena.copy(Buffer.alloc(250)), arena.copy(Buffer.alloc(250)), arena.copy(Buffer.alloc(250))];
    assert.equal(rest[1]!.buffer, a.buffer, '900 B fit in 1 KiB');
    assert.notEqual(rest[2]!.buffer, a.buffer, '1,150 B do not');
    assert.equal(rest[2]!.byteOffset, 0);
  });

  it('gives values above a quarter slab a backing store of their own, and copies (never aliases) the input', () => {
    const arena = new ValueArena(1024);
    const src = Buffer.from('x'.repeat(300));
    const big = arena.copy(src);
    assert.equal(big.buffer.byteLength, 300);
    src.fill('y');
    assert.equal(big.toString(), 'x'.repeat(300));
    const small = arena.copy(Buffer.from('z'));
    src.fill('w');
    assert.equal(small.toString(), 'z');
    assert.equal(arena.copy(Buffer.alloc(0)).length, 0);
  });
});
