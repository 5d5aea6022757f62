import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goQuoteChar, parseGoJson } from './gojson-decode.ts';

const parse = (s: string) => parseGoJson(Buffer.from(s, 'utf8'));

describe('parseGoJson', () => {
  it('keeps number literals and key order', () => {
    assert.deepEqual(parse(' {"a":-1.5e+3,"b":[true,false,null],"a":"x\\u00e9\\n"} '), {
      kind: 'object',
      entries: [
        ['a', { kind: 'number', literal: '-1.5e+3' }],
        ['b', { kind: 'array', items: [{ kind: 'bool', value: true }, { kind: 'bool', value: false }, { kind: 'null' }] }],
        ['a', { kind: 'string', value: 'x\u00e9\n' }],
      ],
    });
  });
  it('replaces invalid UTF-8 in strings', () => {
    assert.deepEqual(parseGoJson(Uint8Array.from([0x22, 0xff, 0x22])), { kind: 'string', value: '\ufffd' });
  });
  const errors: [string, string][] = [
    ['', 'unexpected end of JSON input'],
    ['  ', 'unexpected end of JSON input'],
    ['[', 'unexpected end of JSON input'],
    ['"\\u12', 'unexpected end of JSON input'],
    ['-', "invalid character ' ' in numeric literal"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['f', "invalid character ' ' in literal false (expecting 'a')"],
    ['nulL', "invalid character 'L' in literal null (expecting 'l')"],
    ['1 2', "invalid character '2' after top-level value"],
    ['{"a"}', "invalid character '}' after object key"],
    ['{"a":1]', "invalid character ']' after object key:value pair"],
    ['[1}', "invalid character '}' after array element"],
    ['\\', "invalid character '\\\\' looking for beginning of value"],
  ];
  for (const [input, msg] of errors) it(JSON.stringify(input), () => assert.throws(() => parse(input), { message: msg }));
});

describe('goQuoteChar (how Go names an offending byte)', () => {
  const cases: [number, string][] = [
    [0x61, "'a'"],
    [0x27, "'\\''"],
    [0x22, `'"'`],
    [0x5c, "'\\\\'"],
    [0x0a, "'\\n'"],
    [0x00, "'\\x00'"],
    [0x7f, "'\\x7f'"],
    [0x8a, "'\\u008a'"],
    [0xa0, "'\\u00a0'"],
    [0xad, "'\\u00ad'"],
    [0xe9, "'\u00e9'"],
    [0xff, "'\u00ff'"],
  ];
  for (const [c, want] of cases) it(`0x${c.toString(16)}`, () => assert.equal(goQuoteChar(c), want));
});
