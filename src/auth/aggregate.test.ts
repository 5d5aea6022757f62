import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateErrors } from './aggregate.ts';

test('aggregateErrors: one error as it is, several as [a, b] with repeated texts once', () => {
  const a = new Error('a');
  assert.equal(aggregateErrors([a]), a);
  const several = aggregateErrors([a, new Error('b'), new Error('a')]);
  assert.equal(several.message, '[a, b]');
  assert.ok(several instanceof AggregateError);
  assert.equal((several as AggregateError).errors.length, 3);
  assert.equal(aggregateErrors([new Error('x'), new Error('x')]).message, 'x');
});
