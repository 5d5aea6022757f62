import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import { escapeFieldValue, oneTermEqualSelector, parseFieldSelector } from './selector.ts';

describe('parseFieldSelector: valid forms', () => {
  const cases: [string, string, { field: string; operator: string; value: string }[]][] = [
    ['', '', []],
    ['a=b', 'a=b', [{ field: 'a', operator: '=', value: 'b' }]],
    ['a==b', 'a=b', [{ field: 'a', operator: '==', value: 'b' }]],
    ['a!=b', 'a!=b', [{ field: 'a', operator: '!=', value: 'b' }]],
    ['a=', 'a=', [{ field: 'a', operator: '=', value: '' }]],
    ['=b', '=b', [{ field: '', operator: '=', value: 'b' }]],
    ['=', '', []],
    [',,a=b,', 'a=b', [{ field: 'a', operator: '=', value: 'b' }]],
    [' a = b ', ' a = b ', [{ field: ' a ', operator: '=', value: ' b ' }]],
    ['b=1,a=2', 'a=2,b=1', [{ field: 'a', operator: '=', value: '2' }, { field: 'b', operator: '=', value: '1' }]],
    ['a=x\\,y', 'a=x\\,y', [{ field: 'a', operator: '=', value: 'x,y' }]],
    ['a=x\\=y\\\\', 'a=x\\=y\\\\', [{ field: 'a', operator: '=', value: 'x=y\\' }]],
    ['a!=\\=b', 'a!=\\=b', [{ field: 'a', operator: '!=', value: '=b' }]],
  ];
  for (const [input, str, reqs] of cases) {
    it(JSON.stringify(input), () => {
      const sel = parseFieldSelector(input);
      assert.equal(sel.toString(), str);
      assert.deepEqual(sel.requirements, reqs);
      assert.equal(sel.isEmpty(), reqs.length === 0);
    });
  }
});

describe('parseFieldSelector: errors are 400 BadRequest with upstream texts', () => {
  const cases: [string, string][] = [
    ['abc', "invalid selector: 'abc'; can't understand 'abc'"],
    ['a=b,zzz,yyy', "invalid selector: 'a=b,zzz,yyy'; can't understand 'yyy'"],
    ['a!b', "invalid selector: 'a!b'; can't understand 'a!b'"],
    ['a=\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a===b', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(
        () => parseFieldSelector(input),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === want,
      );
    });
  }
});

describe('FieldSelector.matches (missing fields match as "")', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['', {}, true],
    ['type=Normal', { type: 'Normal' }, true],
    ['type==Normal', { type: 'Warning' }, false],
    ['type!=Normal', { type: 'Warning' }, true],
    ['type!=Normal', {}, true],
    ['type=', {}, true],
    ['type!=', {}, false],
    ['type=Normal,reason=Started', { type: 'Normal', reason: 'Started' }, true],
    ['type=Normal,reason=Started', { type: 'Normal', reason: 'Killed' }, false],
    ['note=a\\,b', { note: 'a,b' }, true],
    ['constructor=', {}, true],
  ];
  for (const [sel, fields, want] of cases) {
    it(`${sel} on ${JSON.stringify(fields)}`, () => assert.equal(parseFieldSelector(sel).matches(fields), want));
  }
});

describe('FieldSelector helpers', () => {
  it('requiresExactMatch takes the first = or == term and ignores !=', () => {
    assert.equal(parseFieldSelector('metadata.name=foo').requiresExactMatch('metadata.name'), 'foo');
    assert.equal(parseFieldSelector('metadata.name==foo').requiresExactMatch('metadata.name'), 'foo');
    assert.equal(parseFieldSelector('metadata.name!=foo').requiresExactMatch('metadata.name'), undefined);
    assert.equal(parseFieldSelector('a!=x,a=y').requiresExactMatch('a'), 'y');
    assert.equal(parseFieldSelector('a=y').requiresExactMatch('b'), undefined);
  });
  it('escapeFieldValue', () => assert.equal(escapeFieldValue('a\\b,c=d'), 'a\\\\b\\,c\\=d'));
  it('oneTermEqualSelector', () => {
    const s = oneTermEqualSelector('metadata.name', 'x,y');
    assert.equal(s.toString(), 'metadata.name=x\\,y');
    assert.equal(s.matches({ 'metadata.name': 'x,y' }), true);
  });
});
