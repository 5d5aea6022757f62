import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoBool, parseGoInt } from './gostrconv.ts';

test('parseGoInt with base 0 accepts Go literals', () => {
  assert.equal(parseGoInt('6443', 0, 64), 6443);
  assert.equal(parseGoInt('-12', 0, 64), -12);
  assert.equal(parseGoInt('+7', 0, 64), 7);
  assert.equal(parseGoInt('0', 0, 64), 0);
  assert.equal(parseGoInt('0x1F', 0, 64), 31);
  assert.equal(parseGoInt('0b101', 0, 64), 5);
  assert.equal(parseGoInt('0o17', 0, 64), 15);
  assert.equal(parseGoInt('017', 0, 64), 15);
  assert.equal(parseGoInt('1_000', 0, 64), 1000);
});

test('parseGoInt errors use strconv texts', () => {
  for (const bad of ['abc', '', '08', '1_', '_1', '0x', '1.5', ' 1', '1e3']) {
    assert.throws(() => parseGoInt(bad, 0, 64), { message: `strconv.ParseInt: parsing ${JSON.stringify(bad)}: invalid syntax` });
  }
  assert.throws(() => parseGoInt('9223372036854775808', 0, 64), {
    message: 'strconv.ParseInt: parsing "9223372036854775808": value out of range',
  });
  assert.equal(parseGoInt('-2147483648', 10, 32), -2147483648);
  assert.throws(() => parseGoInt('2147483648', 10, 32), { message: /value out of range/ });
  assert.throws(() => parseGoInt('0x10', 10, 32), { message: 'strconv.ParseInt: parsing "0x10": invalid syntax' });
});

test('parseGoBool', () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(t), true);
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(f), false);
  assert.throws(() => parseGoBool('yes'), { message: 'strconv.ParseBool: parsing "yes": invalid syntax' });
});
