import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSyntax } from './jsonsyntax.ts';
import { NEEDS_EXACT, parseExact, scanFast, TOO_DEEP } from './jsonscan.ts';

const check = (s: string): string | null => checkSyntax(Buffer.from(s));

test('checkSyntax accepts valid JSON', () => {
  for (const s of ['{}', '[]', ' {"a": [1, -0.5e+3, true, false, null, "x\\u00e9\\n"]} ', '12', '"s"']) assert.equal(check(s), null, s);
});

test('checkSyntax reports Go scanner texts', () => {
  assert.equal(check('x'), "invalid character 'x' looking for beginning of value");
  assert.equal(check(''), 'unexpected end of JSON input');
  assert.equal(check('{"a":1'), 'unexpected end of JSON input');
  assert.equal(check('{]'), "invalid character ']' looking for beginning of object key string");
  assert.equal(check('{"a" 1}'), "invalid character '1' after object key");
  assert.equal(check('{"a":1 "b":2}'), `invalid character '"' after object key:value pair`);
  assert.equal(check('[1 2]'), "invalid character '2' after array element");
  assert.equal(check('{} x'), "invalid character 'x' after top-level value");
  assert.equal(check('"a\tb"'), "invalid character '\\t' in string literal");
  assert.equal(check('"\\x"'), "invalid character 'x' in string escape code");
  assert.equal(check('"\\u12g4"'), "invalid character 'g' in \\u hexadecimal character escape");
  assert.equal(check('-x'), "invalid character 'x' in numeric literal");
  assert.equal(check('1.x'), "invalid character 'x' after decimal point in numeric literal");
  assert.equal(check('1.'), "invalid character ' ' after decimal point in numeric literal");
  assert.equal(check('1ex'), "invalid character 'x' in exponent of numeric literal");
  // Go's eof() feeds a space, so a cut literal reports that space.
  assert.equal(check('tru'), "invalid character ' ' in literal true (expecting 'e')");
  assert.equal(check('trux'), "invalid character 'x' in literal true (expecting 'e')");
  assert.equal(check("nul'"), "invalid character '\\'' in literal null (expecting 'l')");
  assert.equal(checkSyntax(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])), "invalid character 'ï' looking for beginning of value");
});

test('depth limit is 100 nested values', () => {
  const ok = '['.repeat(100) + ']'.repeat(100);
  const deep = '['.repeat(101) + ']'.repeat(101);
  assert.equal(check(ok), null);
  assert.equal(check(deep), "invalid character '[' exceeded max depth of 100");
  assert.equal(scanFast(ok) & TOO_DEEP, 0);
  assert.equal(scanFast(deep) & TOO_DEEP, TOO_DEEP);
});

test('scanFast flags only what needs the exact parse', () => {
  assert.equal(scanFast('{"a":{"a":1,"b":[{"a":"x"},{"a":"y"}]},"b":"\\"a\\""}'), 0);
  assert.equal(scanFast('{"a":1,"b":2,"a":3}'), NEEDS_EXACT);
  assert.equal(scanFast('{"x":{"a":1,"b":2,"a":3}}'), NEEDS_EXACT);
  assert.equal(scanFast('{"\\u0061":1}'), NEEDS_EXACT);
  assert.equal(scanFast('{"a":1.0}'), NEEDS_EXACT);
  assert.equal(scanFast('{"a":1e3}'), NEEDS_EXACT);
  assert.equal(scanFast('{"a":12345678901234567}'), NEEDS_EXACT);
  // Many keys switch to the Set-based check.
  const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
  assert.equal(scanFast(JSON.stringify(many)), 0);
  assert.equal(scanFast(JSON.stringify(many).replace('"k99"', '"k3"')), NEEDS_EXACT);
});

test('parseExact keeps last values, repeated-key order and non-plain number texts', () => {
  const { value, sides } = parseExact('{"a":1,"b":{"c":1.50},"a":[2,{"__proto__":3}]}');
  assert.deepEqual(JSON.stringify(value), '{"a":[2,{"__proto__":3}],"b":{"c":1.5}}');
  const v = value as { a: unknown[]; b: object };
  assert.deepEqual(sides.order.get(v), ['a', 'b', 'a']);
  assert.equal(sides.numText.get(v.b)?.get('c'), '1.50');
  assert.equal(Object.getPrototypeOf(v.a[1]), Object.prototype);
});
