import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from './errors.ts';
import { parseBoolParam, parseIntParam } from './query.ts';
import { goParseInt, goParseUint } from './strconv.ts';

describe('parseBoolParam (false only if absent, 0 or false in any case)', () => {
  const cases: [string | null, boolean | undefined][] = [
    [null, undefined],
    ['', true],
    ['1', true],
    ['true', true],
    ['yes', true],
    ['no', true],
    ['00', true],
    ['f', true],
    ['0', false],
    ['false', false],
    ['FALSE', false],
    ['False', false],
    ['fAlSe', false],
    ['fal\u017fe', false], // Go's EqualFold folds the long s
    [' false', true],
  ];
  for (const [v, want] of cases) it(JSON.stringify(v), () => assert.equal(parseBoolParam(v), want));
  it('reads the first value of a repeated parameter, like Go', () => {
    assert.equal(parseBoolParam(new URLSearchParams('watch=false&watch=true').get('watch')), false);
    assert.equal(parseBoolParam(new URLSearchParams('watch').get('watch')), true);
  });
});

describe('parseIntParam (base-10 int64, raw strconv text)', () => {
  const ok: [string | null, number | undefined][] = [
    [null, undefined],
    ['0', 0],
    ['500', 500],
    ['-1', -1],
    ['+7', 7],
    ['0010', 10],
    ['9223372036854775807', 9223372036854775807],
  ];
  for (const [v, want] of ok) it(JSON.stringify(v), () => assert.equal(parseIntParam('limit', v), want));

  const bad: [string, string][] = [
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['x', 'strconv.ParseInt: parsing "x": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['0x10', 'strconv.ParseInt: parsing "0x10": invalid syntax'],
    ['1_000', 'strconv.ParseInt: parsing "1_000": invalid syntax'],
    [' 1', 'strconv.ParseInt: parsing " 1": invalid syntax'],
    ['+', 'strconv.ParseInt: parsing "+": invalid syntax'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ['-9223372036854775809', 'strconv.ParseInt: parsing "-9223372036854775809": value out of range'],
    ['a\tb', 'strconv.ParseInt: parsing "a\\tb": invalid syntax'],
  ];
  for (const [v, want] of bad) {
    it(`${JSON.stringify(v)} → 400`, () => {
      assert.throws(
        () => parseIntParam('limit', v),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === want,
      );
    });
  }
});

describe('strconv', () => {
  it('goParseInt bounds', () => {
    assert.equal(goParseInt('-9223372036854775808'), -(2n ** 63n));
    assert.equal(goParseInt('9223372036854775807'), 2n ** 63n - 1n);
  });
  it('goParseUint bounds and sign', () => {
    assert.equal(goParseUint('18446744073709551615'), 2n ** 64n - 1n);
    assert.throws(() => goParseUint('-0'), { message: 'strconv.ParseUint: parsing "-0": invalid syntax' });
  });
});
