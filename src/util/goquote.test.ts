import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goQuote } from './goquote.ts';

test('goQuote matches strconv.Quote', () => {
  assert.equal(goQuote('abc'), '"abc"');
  assert.equal(goQuote(''), '""');
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote('line1\nline2\ttab'), '"line1\\nline2\\ttab"');
  assert.equal(goQuote('\x1b[0m'), '"\\x1b[0m"');
  assert.equal(goQuote('\x7f\x07'), '"\\x7f\\a"');
  assert.equal(goQuote('héllo µs 日本'), '"héllo µs 日本"');
  assert.equal(goQuote('a\u2028b\u00a0c'), '"a\\u2028b\\u00a0c"');
  assert.equal(goQuote('\u{e0001}'), '"\\U000e0001"');
  assert.equal(goQuote('😀'), '"😀"');
});
