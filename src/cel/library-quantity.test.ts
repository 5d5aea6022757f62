import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileClaimsExpression, evaluateClaims } from './authentication.ts';
import { ERR_FORMAT_WRONG, ERR_SUFFIX, parseQuantity } from './library-quantity.ts';

function run(expression: string, claims: Record<string, unknown> = {}): unknown {
  const r = compileClaimsExpression(expression, 'any');
  assert.equal(r.error, undefined, `${expression}: ${r.error}`);
  return evaluateClaims(r.compiled!, claims);
}

test('quantity: parse, compare, integer view, float view, arithmetic (upstream\'s library over resource.Quantity)', () => {
  assert.equal(run('quantity(claims.q).isGreaterThan(quantity("1Gi"))', { q: '2G' }), true, '2G > 1Gi');
  assert.equal(run('quantity("1000m").compareTo(quantity("1"))'), 0n);
  assert.equal(run('quantity("1Ki").asInteger()'), 1024n);
  assert.equal(run('quantity("1.5k").asInteger()'), 1500n);
  assert.equal(run('quantity("1.5k").isInteger()'), true);
  assert.equal(run('quantity("1.0").isInteger()'), false, 'kept as 10×10⁻¹, as apimachinery keeps it');
  assert.equal(run('quantity("500m").isInteger()'), false);
  assert.equal(run('quantity("500m").asApproximateFloat()'), 0.5);
  assert.equal(run('quantity("-3").sign()'), -1n);
  assert.equal(run('quantity("0").sign()'), 0n);
  assert.equal(run('quantity("1").add(quantity("500m")).compareTo(quantity("1.5"))'), 0n);
  assert.equal(run('quantity("1").add(2).asInteger()'), 3n);
  assert.equal(run('quantity("1.5").add(quantity("500m")).isInteger()'), false, 'sums are not reduced, as upstream');
  assert.equal(run('quantity("10").sub(quantity("2500m")).asApproximateFloat()'), 7.5);
  assert.equal(run('quantity("10").sub(11).sign()'), -1n);
  assert.equal(run('quantity("1e3").isLessThan(quantity("1001"))'), true);
  assert.equal(run('isQuantity("1.5Gi")'), true);
  assert.equal(run('isQuantity("10Xi")'), false);
  assert.equal(run('quantity("1.5Gi").isInteger()'), false, 'a binary fraction takes the decimal form');
  assert.throws(() => run('quantity("1.2.3")'), { message: new RegExp(ERR_FORMAT_WRONG.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
  assert.throws(() => run('quantity("12345678901234567890").asInteger()'), /cannot convert value to integer/);
});

test('quantity: apimachinery\'s parse errors and rounding of tiny values', () => {
  assert.throws(() => parseQuantity(''), { message: ERR_FORMAT_WRONG });
  assert.throws(() => parseQuantity('1x'), { message: ERR_FORMAT_WRONG });
  assert.throws(() => parseQuantity('1Ki5'), { message: ERR_SUFFIX });
  assert.throws(() => parseQuantity('1KK'), { message: ERR_SUFFIX });
  // Below a nano, a non-zero value is rounded up (away from zero) to one nano.
  const tiny = parseQuantity('0.1n');
  assert.deepEqual([tiny.value, tiny.scale, tiny.dec], [1n, -9, true]);
  const negTiny = parseQuantity('-0.1n');
  assert.deepEqual([negTiny.value, negTiny.scale], [-1n, -9]);
  assert.deepEqual([parseQuantity('1.5k').value, parseQuantity('1.5k').scale], [15n, 2]);
  assert.deepEqual([parseQuantity('1Mi').value, parseQuantity('1Mi').scale], [1n << 20n, 0]);
});
