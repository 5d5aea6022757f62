import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors.ts';
import { parseLabelSelector } from './selector.ts';
import { scan, Token } from './lexer.ts';

const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const KEY_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const OPS = 'in, notin, =, ==, !=, gt, lt';

describe('label selector lexer', () => {
  const cases: [string, Token[]][] = [
    ['x in (a)', [Token.Identifier, Token.In, Token.OpenPar, Token.Identifier, Token.ClosedPar, Token.EndOfString]],
    ['!=', [Token.NotEquals, Token.EndOfString]],
    ['==', [Token.DoubleEquals, Token.EndOfString]],
    ['=!', [Token.Equals, Token.DoesNotExist, Token.EndOfString]],
    ['>=', [Token.GreaterThan, Token.Equals, Token.EndOfString]],
    ['notin', [Token.NotIn, Token.EndOfString]],
    ['a\0b', [Token.Identifier, Token.Identifier, Token.EndOfString]],
    ['a \0b', [Token.Identifier, Token.EndOfString]],
    [' \t\r\n', [Token.EndOfString]],
  ];
  for (const [input, toks] of cases) {
    it(JSON.stringify(input), () => assert.deepEqual(scan(input).map((i) => i.tok), toks));
  }
});

describe('parseLabelSelector: valid forms round-trip through toString', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x = a', 'x=a'],
    ['x=', 'x='],
    ['x= ,z= ', 'x=,z='],
    ['x', 'x'],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x<5', 'x<5'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x in (a,a)', 'x in (a)'],
    ['x notin (a)', 'x notin (a)'],
    ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x=a,a=x', 'a=x,x=a'],
    ['notin=in', 'notin=in'],
    ['in in (in,notin)', 'in in (in,notin)'],
    ['example.com/key=v', 'example.com/key=v'],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => assert.equal(parseLabelSelector(input).toString(), want));
  }
});

describe('parseLabelSelector: errors are 400 BadRequest with the upstream parser text', () => {
  const cases: [string, string][] = [
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['x=a,', "found '', expected: identifier after ','"],
    ['x=a,,', "found ',', expected: identifier after ','"],
    ['x=a y', "found 'y', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!x', "unable to parse requirement: found '!', expected: identifier"],
    ['x y', `unable to parse requirement: found 'y', expected: ${OPS}`],
    ['x (', `unable to parse requirement: found '(', expected: ${OPS}`],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['x in ((', "unable to parse requirement: found '(', expected: ',', ')' or identifier"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a@b', `unable to parse requirement: <nil>: Invalid value: "a@b": ${KEY_NAME_MSG}`],
    ['/a', 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'],
    [
      'a/b/c',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    ['env=a@b', `unable to parse requirement: values[0][env]: Invalid value: "a@b": ${VALUE_MSG}`],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${VALUE_MSG}`],
    ['x<-5', `unable to parse requirement: values[0][x]: Invalid value: "-5": ${VALUE_MSG}`],
    ['x in (ok,b@d)', `unable to parse requirement: values[0][x]: Invalid value: "b@d": ${VALUE_MSG}`],
    [`x=${'a'.repeat(64)}`, `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes`],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`],
    [
      'x>a@b',
      `unable to parse requirement: [values[0]: Invalid value: "a@b": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "a@b": ${VALUE_MSG}]`,
    ],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(
        () => parseLabelSelector(input),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.reason === 'BadRequest' && e.message === want,
      );
    });
  }
});

describe('LabelSelector.matches', () => {
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['', { x: 'y' }, true],
    ['', undefined, true],
    ['x=y', { x: 'y' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y', undefined, false],
    ['x==y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y', { x: 'z' }, true],
    ['x!=y', {}, true],
    ['x!=y', { x: 'y' }, false],
    ['x', { x: '' }, true],
    ['x', { y: 'x' }, false],
    ['!x', { y: 'x' }, true],
    ['!x', { x: '' }, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x in ()', { x: '' }, true],
    ['x=', { x: '' }, true],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: 'abc' }, false],
    ['x>1', {}, false],
    ['x<1', { x: '-3' }, true],
    ['x<1', { x: '+0' }, true],
    ['x>9223372036854775806', { x: '9223372036854775807' }, true],
    ['toString', {}, false],
  ];
  for (const [sel, labels, want] of cases) {
    it(`${JSON.stringify(sel)} on ${JSON.stringify(labels)}`, () => assert.equal(parseLabelSelector(sel).matches(labels), want));
  }
});

describe('LabelSelector helpers', () => {
  it('isEmpty', () => {
    assert.equal(parseLabelSelector('').isEmpty(), true);
    assert.equal(parseLabelSelector('  ').isEmpty(), true);
    assert.equal(parseLabelSelector('x').isEmpty(), false);
  });
  it('requiresExactMatch', () => {
    assert.equal(parseLabelSelector('x=a,y').requiresExactMatch('x'), 'a');
    assert.equal(parseLabelSelector('x in (a)').requiresExactMatch('x'), 'a');
    assert.equal(parseLabelSelector('x in (a,b)').requiresExactMatch('x'), undefined);
    assert.equal(parseLabelSelector('x!=a').requiresExactMatch('x'), undefined);
    assert.equal(parseLabelSelector('y=a').requiresExactMatch('x'), undefined);
  });
  it('requirements are sorted by key with sorted unique values', () => {
    assert.deepEqual(parseLabelSelector('b in (z,y,z),a').requirements, [
      { key: 'a', operator: 'exists', values: [] },
      { key: 'b', operator: 'in', values: ['y', 'z'] },
    ]);
  });
});
