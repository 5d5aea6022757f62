import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goParseBool, goParseInt, GoNumError, isGoInt64 } from './strconv.ts';

test('goParseInt with base 0 accepts Go literals', () => {
  assert.equal(goParseInt('6443', 0, 64), 6443n);
  assert.equal(goParseInt('-12', 0, 64), -12n);
  assert.equal(goParseInt('+7', 0, 64), 7n);
  assert.equal(goParseInt('0', 0, 64), 0n);
  assert.equal(goParseInt('0x1F', 0, 64), 31n);
  assert.equal(goParseInt('0b101', 0, 64), 5n);
  assert.equal(goParseInt('0o17', 0, 64), 15n);
  assert.equal(goParseInt('0O17', 0, 64), 15n);
  assert.equal(goParseInt('017', 0, 64), 15n);
  assert.equal(goParseInt('1_000', 0, 64), 1000n);
});

test('goParseInt errors use strconv texts', () => {
  for (const bad of ['abc', '', '08', '1_', '_1', '0x', '1.5', ' 1', '1e3']) {
    assert.throws(() => goParseInt(bad, 0, 64), { message: `strconv.ParseInt: parsing ${JSON.stringify(bad)}: invalid syntax` });
  }
  assert.throws(() => goParseInt('9223372036854775808', 0, 64), {
    message: 'strconv.ParseInt: parsing "9223372036854775808": value out of range',
  });
  assert.equal(goParseInt('-2147483648', 10, 32), -2147483648n);
  assert.throws(() => goParseInt('2147483648', 10, 32), { message: /value out of range/ });
  assert.throws(() => goParseInt('0x10', 10, 32), { message: 'strconv.ParseInt: parsing "0x10": invalid syntax' });
  assert.throws(() => goParseInt('1_000'), { message: 'strconv.ParseInt: parsing "1_000": invalid syntax' });
  assert.throws(() => goParseInt('x'), GoNumError);
});

test('isGoInt64 is ParseInt(s, 10, 64) succeeding', () => {
  assert.equal(isGoInt64('+500'), true);
  assert.equal(isGoInt64('-9223372036854775808'), true);
  assert.equal(isGoInt64('9223372036854775808'), false);
  assert.equal(isGoInt64('1.5'), false);
});

test('goParseBool', () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(goParseBool(t), true);
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(goParseBool(f), false);
  assert.throws(() => goParseBool('yes'), { message: 'strconv.ParseBool: parsing "yes": invalid syntax' });
  assert.throws(() => goParseBool('tRUE'), GoNumError);
});
