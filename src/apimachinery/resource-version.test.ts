import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from './errors.ts';
import { parseResourceVersion, parseStorageResourceVersion } from './resource-version.ts';

describe('parseResourceVersion', () => {
  const ok: [string, number][] = [
    ['', 0],
    ['0', 0],
    ['1', 1],
    ['007', 7],
    ['123456789', 123456789],
  ];
  for (const [input, want] of ok) it(JSON.stringify(input), () => assert.equal(parseResourceVersion(input), want));

  const bad: [string, string][] = [
    ['abc', 'strconv.ParseUint: parsing "abc": invalid syntax'],
    ['-1', 'strconv.ParseUint: parsing "-1": invalid syntax'],
    ['+1', 'strconv.ParseUint: parsing "+1": invalid syntax'],
    [' 1', 'strconv.ParseUint: parsing " 1": invalid syntax'],
    ['1e3', 'strconv.ParseUint: parsing "1e3": invalid syntax'],
    ['18446744073709551616', 'strconv.ParseUint: parsing "18446744073709551616": value out of range'],
  ];
  for (const [input, strconv] of bad) {
    it(`list: ${JSON.stringify(input)} is a 400`, () => {
      assert.throws(
        () => parseResourceVersion(input),
        (e: unknown) =>
          e instanceof StatusError &&
          e.code === 400 &&
          e.reason === 'BadRequest' &&
          e.message === `invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(input)}: ${strconv}`,
      );
    });
    it(`get/watch: ${JSON.stringify(input)} is a 400 with upstream's text`, () => {
      assert.throws(
        () => parseStorageResourceVersion(input),
        (e: unknown) =>
          e instanceof StatusError &&
          e.code === 400 &&
          e.reason === 'BadRequest' &&
          e.message === `resourceVersion: Invalid value: ${JSON.stringify(input)}: ${strconv}`,
      );
    });
  }
  it('the upper uint64 bound is accepted', () => assert.equal(parseResourceVersion('18446744073709551615'), 18446744073709551615));
});
