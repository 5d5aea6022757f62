import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readGoCSV } from './gocsv.ts';

test('readGoCSV: records as Go encoding/csv reads them', () => {
  assert.deepEqual(readGoCSV('a,b,c\n'), [['a', 'b', 'c']]);
  assert.deepEqual(readGoCSV('a,b\r\n\r\n\nc'), [['a', 'b'], ['c']]);
  assert.deepEqual(readGoCSV('"x,y","say ""hi""",\n'), [['x,y', 'say "hi"', '']]);
  assert.deepEqual(readGoCSV('"multi\nline",z\n'), [['multi\nline', 'z']]);
  assert.deepEqual(readGoCSV(' a , b '), [[' a ', ' b ']]);
  assert.deepEqual(readGoCSV(''), []);
});

test('readGoCSV: Go\'s parse errors', () => {
  assert.throws(() => readGoCSV('ab"c,d'), { message: 'parse error on line 1, column 3: bare " in non-quoted-field' });
  assert.throws(() => readGoCSV('ok\n"a"b,c'), { message: 'parse error on line 2, column 3: extraneous or missing " in quoted-field' });
  assert.throws(() => readGoCSV('"a\nb'), { message: /^record on line 1; parse error on line 2, column \d+: extraneous or missing " in quoted-field$/ });
});
