import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NoncePool } from './nonces.ts';

test('every nonce is handed out once, across refills, and only its own bytes are written', () => {
  // 4 per refill: 3000 draws cross 750 refills.
  const pool = new NoncePool(12, 4);
  const seen = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const out = Buffer.alloc(20, 0xaa);
    pool.writeTo(out, 5);
    assert.deepEqual([...out.subarray(0, 5), ...out.subarray(17)], Array(8).fill(0xaa), 'bytes outside the nonce untouched');
    const n = out.subarray(5, 17).toString('hex');
    assert.ok(!seen.has(n), `nonce ${n} handed out twice (draw ${i})`);
    seen.add(n);
  }
  // Fresh randomness, not a counter or a zero pool: the bytes of 3000 random nonces cover nearly every value.
  const bytes = new Set([...seen].flatMap((h) => [...Buffer.from(h, 'hex')]));
  assert.ok(bytes.size > 250, `only ${bytes.size} distinct byte values`);
});

test('sizes must be positive integers', () => {
  assert.throws(() => new NoncePool(0), /positive integers/);
  assert.throws(() => new NoncePool(12, 0), /positive integers/);
  assert.throws(() => new NoncePool(1.5), /positive integers/);
});
