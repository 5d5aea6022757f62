import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HASH_SPACE_END, fnv1a64, fnv1a64Halves, formatShardHex } from './hash.ts';

/** The textbook definition, one bigint step per UTF-8 byte, to check the 32-bit-halves loop against. */
function referenceBytes(bytes: Iterable<number>): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & (HASH_SPACE_END - 1n);
  return h;
}
const reference = (value: string) => referenceBytes(new TextEncoder().encode(value));

test('FNV-1a 64 known vectors', () => {
  const vectors: [string, bigint][] = [
    ['', 0xcbf29ce484222325n],
    ['a', 0xaf63dc4c8601ec8cn],
    ['foobar', 0x85944171f73967e8n],
  ];
  for (const [input, want] of vectors) assert.equal(fnv1a64(input), want, JSON.stringify(input));
});

test('hashes the UTF-8 bytes, not UTF-16 code units', () => {
  assert.equal(fnv1a64('é'), referenceBytes([0xc3, 0xa9]));
  assert.notEqual(fnv1a64('é'), referenceBytes([0xe9])); // the UTF-16 code unit
  assert.equal(fnv1a64('\u{1F600}'), referenceBytes([0xf0, 0x9f, 0x98, 0x80]));
});

test('halves and bigint agree with the reference for any string', () => {
  fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.uuid()), (s) => {
    const [hi, lo] = fnv1a64Halves(s);
    const h = reference(s);
    assert.equal(fnv1a64(s), h);
    assert.equal(BigInt(hi) * 2n ** 32n + BigInt(lo), h);
    assert.ok(hi >= 0 && hi < 2 ** 32 && lo >= 0 && lo < 2 ** 32);
  }), { numRuns: 2000 });
});

test('formatShardHex: 0x and 16 lowercase digits; 2^64 has 17', () => {
  assert.equal(formatShardHex(0n), '0x0000000000000000');
  assert.equal(formatShardHex(0xabcn), '0x0000000000000abc');
  assert.equal(formatShardHex(HASH_SPACE_END - 1n), '0xffffffffffffffff');
  assert.equal(formatShardHex(HASH_SPACE_END), '0x10000000000000000');
});
